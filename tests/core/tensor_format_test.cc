// Expected strings are NumPy 2.4's str() of the same arrays (and, for bfloat16 and the tf.Tensor
// framing, TensorFlow 2.21's output), pasted verbatim.
#include "core/tensor_format.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <sstream>

#include "absl/strings/match.h"
#include "core/constant.h"
#include "tests/test_util.h"

namespace duet {
namespace {

// The values part of FormatTensor: what NumPy's str() of the array prints.
std::string Values(const Tensor& t) {
  const std::string s = FormatTensor(t);
  const std::string prefix = "Tensor(";
  const size_t end = s.rfind(", shape=");
  std::string v = s.substr(prefix.size(), end - prefix.size());
  if (!v.empty() && v[0] == '\n') v.erase(0, 1);
  return v;
}

Tensor Float16s(const std::vector<float>& values) {
  std::vector<float16> h;
  for (float v : values) h.push_back(float16(v));
  return from_vector(h);
}

Tensor BFloat16s(const std::vector<float>& values) {
  std::vector<bfloat16> h;
  for (float v : values) h.push_back(bfloat16(v));
  return from_vector(h);
}

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST_CASE("A matrix prints like tf.Tensor") {
  std::ostringstream os;
  os << constant({{7.f, 10.f}, {15.f, 22.f}});
  CHECK(os.str() == "Tensor(\n[[ 7. 10.]\n [15. 22.]], shape=(2, 2), dtype=float32)");
}

TEST_CASE("Scalars print like NumPy scalars") {
  CHECK(FormatTensor(constant(3.f)) == "Tensor(3.0, shape=(), dtype=float32)");
  CHECK(FormatTensor(constant(true)) == "Tensor(True, shape=(), dtype=bool)");
  CHECK(FormatTensor(constant(int64_t{-42})) == "Tensor(-42, shape=(), dtype=int64)");
  CHECK(Values(constant(1.0 / 3)) == "0.3333333333333333");
  CHECK(Values(constant(0.1f)) == "0.1");
  CHECK(Values(constant(123456.78f)) == "123456.78");
  CHECK(Values(constant(1e6f)) == "1e+06");               // float32 goes scientific from 1e6
  CHECK(Values(constant(1e15)) == "1000000000000000.0");  // float64 only from 1e16
  CHECK(Values(constant(1e16)) == "1e+16");
  CHECK(Values(constant(-2.5e-5f)) == "-2.5e-05");
  CHECK(Values(constant(-0.0)) == "-0.0");
  CHECK(Values(constant(std::nanf(""))) == "nan");
  CHECK(Values(constant(-std::numeric_limits<float>::infinity())) == "-inf");
  CHECK(Values(fill({}, 0.0999, kFloat16)) == "0.0999");
  CHECK(Values(fill({}, 1000, kFloat16)) == "1e+03");  // float16 goes scientific from 1e3
  CHECK(Values(fill({}, 0.1, kBFloat16)) == "0.100098");
}

TEST_CASE("Float columns align on the decimal point with trailing dots") {
  CHECK(Values(constant({1.5f, 2.f})) == "[1.5 2. ]");
  CHECK(Values(constant({-0.0, 1.0})) == "[-0.  1.]");
  CHECK(Values(constant({1.f / 3})) == "[0.33333334]");
  CHECK(Values(constant({1.0 / 3})) == "[0.33333333]");      // precision 8
  CHECK(Values(constant({0.001953125})) == "[0.00195312]");  // rounds half to even
  const std::vector<float> v = {0.0f,       8.41471f,    90.92974f,   0.14112f,
                                -7.568025f, -95.892426f, -0.2794155f, 6.569866f,
                                98.93582f,  0.4121185f,  -5.4402113f, -99.99902f};
  CHECK(Values(from_vector(v, {3, 4})) ==
        "[[  0.          8.41471    90.92974     0.14112  ]\n"
        " [ -7.568025  -95.892426   -0.2794155   6.569866 ]\n"
        " [ 98.93582     0.4121185  -5.4402113 -99.99902  ]]");
}

TEST_CASE("Wide value ranges switch to scientific notation") {
  CHECK(Values(constant({1e-5, 1.5})) == "[1.0e-05 1.5e+00]");
  CHECK(Values(constant({1e100, 1.0})) == "[1.e+100 1.e+000]");
  CHECK(Values(constant({0.0, 1e-5})) == "[0.e+00 1.e-05]");
  CHECK(Values(constant({1e8f, 1.f})) == "[1.e+08 1.e+00]");
  CHECK(Values(constant({-1.5e-7, 2.0, 300.0})) == "[-1.5e-07  2.0e+00  3.0e+02]");
  CHECK(Values(constant({1e-5f, 1e5f, 2.5f})) == "[1.0e-05 1.0e+05 2.5e+00]");
}

TEST_CASE("nan and inf are padded to the column width") {
  CHECK(Values(constant({kNan, -kInf})) == "[ nan -inf]");
  CHECK(Values(from_vector<float>({NAN, 1.5f, -INFINITY})) == "[ nan  1.5 -inf]");
}

TEST_CASE("Bools and integers") {
  CHECK(Values(constant({true, true})) == "[ True  True]");
  CHECK(Values(constant({true, false})) == "[ True False]");
  CHECK(Values(constant({{int64_t{1}, int64_t{-20}}, {int64_t{300}, int64_t{4}}})) ==
        "[[  1 -20]\n [300   4]]");
  CHECK(Values(range(24).reshaped({2, 3, 4})) ==
        "[[[ 0  1  2  3]\n  [ 4  5  6  7]\n  [ 8  9 10 11]]\n\n"
        " [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 23]]]");
}

TEST_CASE("uint8 prints as integers") {
  // TensorFlow 2.21: str(tf.constant(np.array([[0, 255, 7], [128, 1, 200]], np.uint8))).
  CHECK(FormatTensor(from_vector<uint8_t>({0, 255, 7, 128, 1, 200}, {2, 3})) ==
        "Tensor(\n[[  0 255   7]\n [128   1 200]], shape=(2, 3), dtype=uint8)");
  CHECK(FormatTensor(constant(uint8_t{200})) == "Tensor(200, shape=(), dtype=uint8)");
}

TEST_CASE("Strings print as Python bytes, escaped, like tf.Tensor") {
  // Expected strings: TensorFlow 2.21's str() of tf.constant with the same bytes.
  CHECK(FormatTensor(constant("hello")) == "Tensor(b'hello', shape=(), dtype=string)");
  const Tensor awkward = from_vector<std::string>(
      {"abc", "", std::string("a\0b\xff", 4), "it's", "tab\there\n", "q\"'", "back\\slash"});
  CHECK(FormatTensor(awkward) ==
        "Tensor([b'abc' b'' b'a\\x00b\\xff' b\"it's\" b'tab\\there\\n' b'q\"\\'' "
        "b'back\\\\slash'], shape=(7,), dtype=string)");
  CHECK(FormatTensor(constant({{"a", "bb"}, {"ccc", "d"}})) ==
        "Tensor(\n[[b'a' b'bb']\n [b'ccc' b'd']], shape=(2, 2), dtype=string)");
  std::vector<std::string> many;
  for (int i = 0; i <= 1000; ++i) many.push_back(std::to_string(i));
  CHECK(FormatTensor(from_vector(many)) ==
        "Tensor([b'0' b'1' b'2' ... b'998' b'999' b'1000'], shape=(1001,), dtype=string)");
}

TEST_CASE("16-bit floats") {
  CHECK(FormatTensor(Float16s({0.1f, 1.f, 3.3f})) ==
        "Tensor([0.1 1.  3.3], shape=(3,), dtype=float16)");
  CHECK(Values(Float16s({65504.f, 6e-8f, 1e-5f, 0.3f, 1.f})) ==
        "[6.55e+04 5.96e-08 1.00e-05 3.00e-01 1.00e+00]");
  // TensorFlow prints bfloat16 through ml_dtypes: "%g" per element, unaligned.
  CHECK(FormatTensor(BFloat16s({0.1f, 1.f, 3.3f})) ==
        "Tensor([0.100098 1 3.29688], shape=(3,), dtype=bfloat16)");
  CHECK(Values(BFloat16s({NAN, INFINITY, -INFINITY, -0.f})) == "[nan inf -inf -0]");
}

TEST_CASE("Long rows wrap at 75 columns") {
  CHECK(Values(range(0, 30, 1, kFloat64)) ==
        "[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16. 17.\n"
        " 18. 19. 20. 21. 22. 23. 24. 25. 26. 27. 28. 29.]");
}

TEST_CASE("More than 1000 elements are elided with three edge items") {
  CHECK(Values(range(2000)) == "[   0    1    2 ... 1997 1998 1999]");
  CHECK(Values(range(0, 2000, 1, kFloat32).reshaped({20, 100})) ==
        "[[0.000e+00 1.000e+00 2.000e+00 ... 9.700e+01 9.800e+01 9.900e+01]\n"
        " [1.000e+02 1.010e+02 1.020e+02 ... 1.970e+02 1.980e+02 1.990e+02]\n"
        " [2.000e+02 2.010e+02 2.020e+02 ... 2.970e+02 2.980e+02 2.990e+02]\n"
        " ...\n"
        " [1.700e+03 1.701e+03 1.702e+03 ... 1.797e+03 1.798e+03 1.799e+03]\n"
        " [1.800e+03 1.801e+03 1.802e+03 ... 1.897e+03 1.898e+03 1.899e+03]\n"
        " [1.900e+03 1.901e+03 1.902e+03 ... 1.997e+03 1.998e+03 1.999e+03]]");
  CHECK(Values(range(0, 1001, 1, kInt64).reshaped({1001, 1})) ==
        "[[   0]\n [   1]\n [   2]\n ...\n [ 998]\n [ 999]\n [1000]]");
  const std::string cube = Values(range(2000).reshaped({10, 10, 20}));
  CHECK(absl::StartsWith(cube,
                         "[[[   0    1    2 ...   17   18   19]\n"
                         "  [  20   21   22 ...   37   38   39]\n"
                         "  [  40   41   42 ...   57   58   59]\n  ...\n"));
  CHECK(cube.find("  [ 580  581  582 ...  597  598  599]]\n\n ...\n\n [[1400 1401 1402") !=
        std::string::npos);
  CHECK(absl::EndsWith(cube, "\n  [1980 1981 1982 ... 1997 1998 1999]]]"));
}

TEST_CASE("Options change the elision threshold") {
  TensorFormatOptions options;
  options.threshold = 5;
  options.edge_items = 1;
  CHECK(FormatTensor(range(10), options) == "Tensor([0 ... 9], shape=(10,), dtype=int32)");
}

TEST_CASE("Empty, undefined and symbolic tensors") {
  CHECK(FormatTensor(zeros({2, 0})) == "Tensor([], shape=(2, 0), dtype=float32)");
  CHECK(FormatTensor(Tensor()) == "Tensor(<undefined>)");
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = kInt64;
  impl->shape = Shape{Shape::kUnknownDim, 784};
  CHECK(FormatTensor(Tensor(impl)) == "Tensor(shape=(None, 784), dtype=int64)");
  impl->shape = Shape::UnknownRank();
  CHECK(FormatTensor(Tensor(impl)) == "Tensor(shape=<unknown>, dtype=int64)");
}

}  // namespace
}  // namespace duet
