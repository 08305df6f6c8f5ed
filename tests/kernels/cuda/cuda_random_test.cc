// CUDA stateless random kernels against the CPU: the same seed gives the same numbers.
// Uniform values are bit-identical (tolerance 0). Normal values go through CUDA's logf/sincosf
// (log/sincos), which may differ from glibc's in the last ulp or two: float32 within 2e-6 and
// float64 within 1e-13 (absolute + relative).
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/cuda_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::SkipWithoutTestDevice;

// `make` run on the CPU and under a DeviceScope of the test device; the second result must be
// there and match the CPU's within `tol`.
void ExpectSameOnDevice(const std::function<Tensor()>& make, double tol) {
  const Tensor expected = make();
  Tensor actual;
  {
    DeviceScope scope(testing::TestDevice());
    actual = make();
  }
  CHECK(actual.device() == testing::TestDevice());
  testing::ExpectTensorNear(actual.cpu(), expected, tol);
}

const std::vector<Shape> kShapes = {Shape(),       Shape({0}),       Shape({1}),
                                    Shape({3}),    Shape({4}),       Shape({5}),
                                    Shape({7, 3}), Shape({2, 0, 3}), Shape({1000003})};

TEST_CASE("CUDA stateless uniform numbers equal the CPU's bit for bit") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : {kFloat32, kFloat64}) {
    for (int64_t seed : std::vector<int64_t>{0, 1, -7, 123456789012345}) {
      for (const Shape& shape : kShapes) {
        INFO(DTypeName(dtype) << " seed " << seed << " shape " << shape.str());
        ExpectSameOnDevice([&] { return random_uniform(shape, seed, dtype); }, 0);
        ExpectSameOnDevice([&] { return random_uniform(shape, seed, dtype, -3, 5.5); }, 0);
      }
    }
  }
}

TEST_CASE("CUDA stateless normal numbers equal the CPU's within a few ulps") {
  if (SkipWithoutTestDevice()) return;
  for (DType dtype : {kFloat32, kFloat64}) {
    const double tol = dtype == kFloat32 ? 2e-6 : 1e-13;
    for (int64_t seed : std::vector<int64_t>{0, 1, -7, 123456789012345}) {
      for (const Shape& shape : kShapes) {
        INFO(DTypeName(dtype) << " seed " << seed << " shape " << shape.str());
        ExpectSameOnDevice([&] { return random_normal(shape, seed, dtype); }, tol);
        ExpectSameOnDevice([&] { return random_normal(shape, seed, dtype, 2, 0.5); }, tol);
      }
    }
  }
}

}  // namespace
}  // namespace duet
