// CUDA AddN against the CPU. float32/float64/int32/int64 sums of up to three terms round alike on
// both devices (exact for the small integers used here). float16/bfloat16: the CPU rounds once
// after summing in float32, CUDA after each add, so they are compared at 1e-2 relative.
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/cuda_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectDeviceMatchesCpu;
using testing::SkipWithoutTestDevice;
using Tensors = std::vector<Tensor>;

Tensor Pattern(DType dtype, const Shape& shape, int shift) {
  std::vector<double> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 7 + shift) % 23) - 11;
  return testing::MakeTensor(dtype, shape, v);
}

TEST_CASE("CUDA AddN matches the CPU") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64}) {
    INFO("dtype " << DTypeName(dtype));
    const double tol = dtype == kFloat16 || dtype == kBFloat16 ? 1e-2 : 0;
    for (const Shape& shape : {Shape({2, 3}), Shape({0, 3}), Shape({1025, 1031})}) {
      INFO("shape " << shape.str());
      const Tensors in = {Pattern(dtype, shape, 0), Pattern(dtype, shape, 3),
                          Pattern(dtype, shape, 8), Pattern(dtype, shape, 13)};
      ExpectDeviceMatchesCpu(
          [](const Tensors& x) {
            return Tensors{add_n({x[0]}), add_n({x[0], x[1]}), add_n({x[0], x[1], x[2]}), add_n(x)};
          },
          in, tol);
    }
  }
}

}  // namespace
}  // namespace duet
