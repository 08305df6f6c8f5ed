// Writes a TensorBundle with duet's BundleWriter for TensorFlow to read (tf_bundle_test.sh):
// DIR/duet_bundle.{index,data-00000-of-00001}. check_duet_bundle_in_tf.py computes the same
// values and compares them with tf.train.load_checkpoint's, and writes the same tensors with
// TensorFlow's SaveV2 to check that the files are byte-identical.
#include <iostream>
#include <string>
#include <vector>

#include "core/constant.h"
#include "io/checkpoint/tensor_bundle.h"

namespace duet {
namespace {

// i * 0.5 - 3 for i in [0, n): values every float dtype holds exactly.
template <typename T>
std::vector<T> Halves(int n) {
  std::vector<T> v;
  for (int i = 0; i < n; ++i) v.push_back(T(static_cast<float>(i * 0.5 - 3)));
  return v;
}

void Export(const std::string& dir) {
  io::BundleWriter writer(dir + "/duet_bundle");
  // Out of order on purpose: the index is sorted, the data file follows the add order.
  writer.add("model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE",
             from_vector(Halves<float>(12), {3, 4}));
  writer.add("float32", from_vector(Halves<float>(6), {2, 3}));
  writer.add("float64", from_vector(std::vector<double>{3.141592653589793, -1e300, 5e-324}, {3}));
  writer.add("float16", from_vector(Halves<float16>(5), {5}));
  writer.add("bfloat16", from_vector(Halves<bfloat16>(4), {2, 2}));
  writer.add("int32", from_vector(std::vector<int32_t>{2147483647, -2147483647 - 1, 0}, {3, 1}));
  writer.add("int64", from_vector(std::vector<int64_t>{1, -9000000000000000000, 3000000000}, {3}));
  writer.add("bool", from_vector(std::vector<bool>{true, false, false, true}, {4}));
  writer.add("scalar", from_vector(std::vector<float>{42.5f}, {}));
  writer.add("empty", from_vector(std::vector<float>{}, {0, 3}));
  writer.add("strings", from_vector<std::string>(
                            {"a", "", std::string(300, 'x'), std::string("nul\0byte", 8)}, {2, 2}));
  writer.add("scalar_string", constant("hello"));
  writer.add("empty_strings", Tensor::Empty(kString, {0}));
  // Enough keys for an index of several 256 KiB blocks.
  for (int i = 0; i < 20000; ++i) {
    writer.add("many/" + std::to_string(i), from_vector(std::vector<int32_t>{i}, {1}));
  }
  writer.finish();
}

}  // namespace
}  // namespace duet

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: export_duet_bundle DIR\n";
    return 2;
  }
  duet::Export(argv[1]);
  return 0;
}
