// CUDA Pack, Unpack, Range, Snapshot, IdentityN, EnsureShape and PlaceholderWithDefault against
// the CPU, for every dtype they take. These kernels move bits or compute start + i * delta in the
// same arithmetic as the CPU, so the tolerance is 0 (exact).
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/cuda_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectDeviceMatchesCpu;
using testing::SkipWithoutTestDevice;
using Tensors = std::vector<Tensor>;

const std::vector<DType> kAllTypes = {kFloat32, kFloat64, kFloat16, kBFloat16,
                                      kInt32,   kInt64,   kBool};

// Small integers (odd ones true as bool): exact in every dtype.
Tensor Pattern(DType dtype, const Shape& shape, int shift = 0) {
  std::vector<double> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 7 + shift) % 23) - 11;
  return testing::MakeTensor(dtype, shape, v);
}

TEST_CASE("CUDA Pack and Unpack match the CPU") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : kAllTypes) {
    INFO("dtype " << DTypeName(dtype));
    for (const Shape& shape : {Shape({2, 3}), Shape({0, 3}), Shape({1025, 1031})}) {
      INFO("shape " << shape.str());
      const Tensors in = {Pattern(dtype, shape), Pattern(dtype, shape, 5),
                          Pattern(dtype, shape, 9)};
      ExpectDeviceMatchesCpu(
          [](const Tensors& x) {
            return Tensors{stack(x), stack(x, 1), stack(x, -1)};
          },
          in, 0);
      ExpectDeviceMatchesCpu([](const Tensors& x) { return unstack(x[0], 1); },
                             {Pattern(dtype, Shape({shape.dim(0), 3, 4}))}, 0);
    }
  }
}

TEST_CASE("CUDA Snapshot, IdentityN, EnsureShape and PlaceholderWithDefault match the CPU") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : kAllTypes) {
    INFO("dtype " << DTypeName(dtype));
    ExpectDeviceMatchesCpu(
        [](const Tensors& x) {
          Tensors out = identity_n(x);
          out.push_back(snapshot(x[0]));
          out.push_back(ensure_shape(x[1], {-1, 3}));
          out.push_back(placeholder_with_default(x[0], Shape::UnknownRank()));
          return out;
        },
        {Pattern(dtype, {1025, 1031}), Pattern(dtype, {2, 3})}, 0);
  }
}

TEST_CASE("CUDA Range matches the CPU") {
  if (SkipWithoutTestDevice()) return;
  // The operands are host scalars, so the device comes from a DeviceScope.
  auto on = [](Device device, const Tensor& start, double limit, double delta) {
    DeviceScope scope(device);
    return range(start, limit, delta);
  };
  for (const Tensor& start : {constant(3), constant(int64_t{-7}), constant(0.5f), constant(-2.0)}) {
    INFO("dtype " << DTypeName(start.dtype()));
    for (double limit : {3.0, 1e6 + 1}) {
      const Tensor there = on(testing::TestDevice(), start, limit, 3);
      CHECK(there.device() == testing::TestDevice());
      testing::ExpectTensorNear(there.cpu(), on(Device::cpu(), start, limit, 3), 0);
    }
  }
  // Issue 37: float32's length is computed in float32 (3 elements, not 4).
  const Tensor there = on(testing::TestDevice(), constant(0.f), 0.3, 0.1);
  CHECK(there.shape() == Shape{3});
  testing::ExpectTensorNear(there.cpu(), on(Device::cpu(), constant(0.f), 0.3, 0.1), 0);
}

}  // namespace
}  // namespace duet
