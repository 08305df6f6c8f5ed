// CUDA view kernels (Identity, StopGradient, Reshape, ExpandDims, Squeeze) and metadata kernels
// (Shape, Size, Rank) against the CPU. Views move no data, so the tolerance is 0 (exact).
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/cuda_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectDeviceMatchesCpu;
using testing::OnTestDevice;
using testing::SkipWithoutTestDevice;
using testing::TestDevice;

const std::vector<DType> kAllTypes = {kFloat32, kFloat64, kFloat16, kBFloat16,
                                      kInt32,   kInt64,   kBool};

// Small integers (odd ones true as bool): exact in every dtype.
Tensor Pattern(DType dtype, const Shape& shape) {
  std::vector<double> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 5) % 11) - 5;
  return testing::MakeTensor(dtype, shape, v);
}

TEST_CASE("CUDA views match the CPU for every dtype") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : kAllTypes) {
    INFO("dtype " << DTypeName(dtype));
    for (const Shape& shape : {Shape({2, 3, 1}), Shape({0, 1, 4}), Shape({1, 1, 1})}) {
      INFO("shape " << shape.str());
      const Tensor x = Pattern(dtype, shape);
      ExpectDeviceMatchesCpu(
          [](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{identity(in[0]),        stop_gradient(in[0]),
                                       reshape(in[0], {-1}),   expand_dims(in[0], 0),
                                       expand_dims(in[0], -1), squeeze(in[0])};
          },
          {x}, 0);
    }
    ExpectDeviceMatchesCpu(
        [](const std::vector<Tensor>& in) {
          return std::vector<Tensor>{reshape(in[0], {3, -1}), squeeze(in[0], {2})};
        },
        {Pattern(dtype, {3, 4, 1})}, 0);
  }
}

TEST_CASE("CUDA views share the input's device memory") {
  if (SkipWithoutTestDevice()) return;
  const Tensor x = OnTestDevice(Pattern(kFloat32, {4, 6}));
  const Tensor r = reshape(x, {2, 12});
  CHECK(r.device() == TestDevice());
  CHECK(r.impl()->data == x.impl()->data);  // compared, not read (a device's memory)
}

TEST_CASE("CUDA Shape, Size and Rank write host tensors") {
  if (SkipWithoutTestDevice()) return;
  const Tensor x = OnTestDevice(Pattern(kFloat16, {3, 0, 7}));
  for (DType out_type : {kInt32, kInt64}) {
    const Tensor s = shape_of(x, out_type);
    CHECK(s.device().is_host());
    testing::ExpectTensor(s, out_type, {3}, {3, 0, 7}, 0);
    const Tensor n = size(OnTestDevice(Pattern(kInt64, {5, 9})), out_type);
    CHECK(n.device().is_host());
    testing::ExpectTensor(n, out_type, {}, {45}, 0);
  }
  const Tensor r = rank(x);
  CHECK(r.device().is_host());
  testing::ExpectTensor(r, kInt32, {}, {3}, 0);
}

TEST_CASE("A CUDA Shape output feeds a host input of a GPU op") {
  if (SkipWithoutTestDevice()) return;
  const Tensor x = OnTestDevice(Pattern(kFloat32, {6, 5}));
  const Tensor y = reshape(OnTestDevice(Pattern(kFloat32, {30})), shape_of(x));
  CHECK(y.device() == TestDevice());
  testing::ExpectTensorNear(y.cpu(), Pattern(kFloat32, {6, 5}), 0);
}

}  // namespace
}  // namespace duet
