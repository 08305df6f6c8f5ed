// CUDA FusedBatchNormV3 against the CPU kernel: every output, training and inference.
//
// Tolerances: float32 1e-4 (the CPU's oneDNN sums in float32, the GPU in double; batches of up
// to ~17K rows); float64 1e-10; bfloat16 x 3e-2.
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/cuda_test_util.h"

namespace duet {
namespace {

Tensor Random(const Shape& shape, int seed, DType dtype, double lo = -1, double hi = 1) {
  const Tensor t = random_uniform(shape, seed, dtype == kFloat64 ? kFloat64 : kFloat32, lo, hi);
  return dtype == kBFloat16 ? cast(t, kBFloat16) : t;
}

TEST_CASE("CUDA FusedBatchNormV3 matches the CPU in training and inference") {
  if (testing::SkipWithoutTestDevice()) return;
  int seed = 1;
  for (DType dtype : {kFloat32, kFloat64, kBFloat16}) {
    const DType u = dtype == kFloat64 ? kFloat64 : kFloat32;
    const double tol = dtype == kFloat64 ? 1e-10 : dtype == kBFloat16 ? 3e-2 : 1e-4;
    for (const Shape& shape :
         {Shape{2, 5, 7, 3}, Shape{1, 1, 1, 70}, Shape{16, 33, 33, 40}, Shape{0, 4, 4, 3}}) {
      for (bool training : {true, false}) {
        if (shape[0] == 0 && training) continue;  // NaN statistics: compared below
        INFO(DTypeName(dtype) << " " << shape.str() << " training=" << training);
        const int64_t c = shape[3];
        testing::ExpectDeviceMatchesCpu(
            [training](const std::vector<Tensor>& in) {
              const FusedBatchNormResult r =
                  fused_batch_norm(in[0], in[1], in[2], in[3], in[4], 1e-3f, training);
              return std::vector<Tensor>{r.y,
                                         r.batch_mean,
                                         r.batch_variance,
                                         r.reserve_space_1,
                                         r.reserve_space_2,
                                         r.reserve_space_3};
            },
            {Random(shape, seed++, dtype, -2, 3), Random({c}, seed++, u), Random({c}, seed++, u),
             Random({c}, seed++, u), Random({c}, seed++, u, 0.5, 2)},
            tol);
      }
    }
  }
}

TEST_CASE("CUDA FusedBatchNormV3 training on an empty batch gives NaN statistics") {
  if (testing::SkipWithoutTestDevice()) return;
  const Tensor x = testing::OnTestDevice(Tensor::Empty(kFloat32, {0, 3, 3, 2}));
  const Tensor v = testing::OnTestDevice(constant(std::vector<float>{1, 2}, {2}));
  const FusedBatchNormResult r = fused_batch_norm(x, v, v, v, v, 1e-3f, true);
  for (const Tensor& t :
       {r.batch_mean, r.batch_variance, r.reserve_space_1, r.reserve_space_2, r.reserve_space_3}) {
    for (float value : t.to_vector<float>()) CHECK(std::isnan(value));
  }
}

}  // namespace
}  // namespace duet
