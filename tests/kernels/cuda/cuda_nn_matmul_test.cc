// CUDA MatMul, BatchMatMulV2, _FusedMatMul and _ResourceApplyMatMulGradientDescent against the
// CPU kernels, and the TF32 switch.
//
// Tolerances: float32 1e-5 (TF32 is off by default, so cuBLAS computes exact float32 products
// that differ from oneDNN's only in summation order); float64 1e-12; bfloat16 2e-2 (8-bit
// mantissa, float32 accumulation on both sides, rounding of the result may differ by one ulp).
#include <catch2/catch.hpp>

#include "absl/strings/str_join.h"
#include "duet.h"
#include "ops/nn/fused_nn_ops.h"
#include "tests/cuda_test_util.h"
#include "tests/ops/nn/fusion_reference.h"
#include "tests/test_util.h"

#if DUET_CUDA
#endif

namespace duet {
namespace {

Tensor Random(const Shape& shape, int seed, DType dtype = kFloat32) {
  const Tensor t = random_uniform(shape, seed, dtype == kFloat64 ? kFloat64 : kFloat32, -1, 1);
  return dtype == kBFloat16 ? cast(t, kBFloat16) : t;
}

double Tol(DType dtype) { return dtype == kFloat64 ? 1e-12 : dtype == kBFloat16 ? 2e-2 : 1e-5; }

Shape Stored(int64_t rows, int64_t cols, bool transposed) {
  return transposed ? Shape{cols, rows} : Shape{rows, cols};
}

TEST_CASE("CUDA MatMul matches the CPU for every transpose combination and dtype") {
  if (testing::SkipWithoutTestDevice()) return;
  int seed = 1;
  for (DType dtype : {kFloat32, kFloat64, kBFloat16}) {
    // Sizes that are not multiples of cuBLAS's tiles, one large enough for many blocks, and an
    // empty inner dim (zeros) and empty output.
    for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{13, 37, 9},
                           {300, 129, 257},
                           {5, 0, 7},
                           {0, 4, 3}}) {
      for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
          INFO(DTypeName(dtype) << " m=" << m << " k=" << k << " n=" << n << " ta=" << ta
                                << " tb=" << tb);
          testing::ExpectDeviceMatchesCpu(
              [ta, tb](const std::vector<Tensor>& in) {
                return std::vector<Tensor>{matmul(in[0], in[1], ta, tb)};
              },
              {Random(Stored(m, k, ta), seed++, dtype), Random(Stored(k, n, tb), seed++, dtype)},
              Tol(dtype));
        }
      }
    }
  }
}

TEST_CASE("CUDA BatchMatMulV2 matches the CPU with broadcast batch dims") {
  if (testing::SkipWithoutTestDevice()) return;
  int seed = 100;
  // Full batches, one side broadcast, both sides broadcast in different dims (not expressible as
  // one strided batch), rank 2 against rank 4.
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{4, 5, 6}, {4, 6, 3}},       {{4, 5, 6}, {1, 6, 3}},          {{5, 6}, {3, 2, 6, 7}},
      {{2, 1, 5, 6}, {1, 3, 6, 4}}, {{3, 1, 2, 5, 6}, {4, 1, 6, 2}}, {{0, 5, 6}, {1, 6, 3}}};
  for (DType dtype : {kFloat32, kFloat64, kBFloat16}) {
    for (const auto& [x, y] : cases) {
      for (bool adj : {false, true}) {
        INFO(DTypeName(dtype) << " " << x.str() << " x " << y.str() << " adj=" << adj);
        Shape xs = x, ys = y;
        if (adj) {  // transpose the stored matrices of both operands
          xs.set_dim(xs.rank() - 1, x[x.rank() - 2]);
          xs.set_dim(xs.rank() - 2, x[x.rank() - 1]);
          ys.set_dim(ys.rank() - 1, y[y.rank() - 2]);
          ys.set_dim(ys.rank() - 2, y[y.rank() - 1]);
        }
        testing::ExpectDeviceMatchesCpu(
            [adj](const std::vector<Tensor>& in) {
              return std::vector<Tensor>{matmul(in[0], in[1], adj, adj)};
            },
            {Random(xs, seed++, dtype), Random(ys, seed++, dtype)}, Tol(dtype));
      }
    }
  }
}

TEST_CASE("CUDA _FusedMatMul matches the CPU for every fusion") {
  if (testing::SkipWithoutTestDevice()) return;
  int seed = 200;
  for (DType dtype : {kFloat32, kFloat64, kBFloat16}) {
    for (const std::vector<std::string>& ops : testing::SupportedFusedOps()) {
      INFO(DTypeName(dtype) << " " << absl::StrJoin(ops, ", "));
      std::vector<Tensor> inputs = {Random({33, 70}, seed++, dtype),
                                    Random({65, 70}, seed++, dtype)};
      for (const Tensor& arg : testing::FusionArgs(ops, Random({65}, seed++, dtype), {33, 65})) {
        inputs.push_back(arg);
      }
      testing::ExpectDeviceMatchesCpu(
          [ops](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{fused_matmul(in[0], in[1],
                                                    absl::MakeConstSpan(in).subspan(2), ops, false,
                                                    true, /*leakyrelu_alpha=*/0.3f)};
          },
          inputs, dtype == kBFloat16 ? 3e-2 : Tol(dtype));
    }
  }
}

TEST_CASE("CUDA _ResourceApplyMatMulGradientDescent updates the variable like the CPU") {
  if (testing::SkipWithoutTestDevice()) return;
  constexpr int64_t m = 13, k = 37, n = 9;
  int seed = 300;
  for (DType dtype : {kFloat32, kFloat64}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        INFO(DTypeName(dtype) << " ta=" << ta << " tb=" << tb);
        const Tensor a = Random(Stored(m, k, ta), seed++, dtype);
        const Tensor b = Random(Stored(k, n, tb), seed++, dtype);
        const Tensor init = Random({m, n}, seed++, dtype);
        const Tensor alpha = cast(constant(0.125f), dtype);
        Variable cpu_var(init, "w_cpu");
        resource_apply_matmul_gradient_descent(cpu_var.handle(), alpha, a, b, ta, tb);
        using testing::OnTestDevice;
        Variable device_var(OnTestDevice(init), "w_device");
        resource_apply_matmul_gradient_descent(device_var.handle(), OnTestDevice(alpha),
                                               OnTestDevice(a), OnTestDevice(b), ta, tb);
        CHECK(device_var.value().device() == testing::TestDevice());
        testing::ExpectTensorNear(device_var.value().cpu(), cpu_var.value(), Tol(dtype));
      }
    }
  }
}

TEST_CASE("CUDA float32 matmul is exact float32 with TF32 off, and the switch is observable") {
  if (testing::SkipWithoutGpu()) return;
#if DUET_CUDA
  REQUIRE_FALSE(cuda::allow_tf32());  // the default
  const Tensor a = Random({256, 256}, 400), b = Random({256, 256}, 401);
  const std::vector<float> cpu = matmul(a, b).to_vector<float>();
  const std::vector<float> gpu = matmul(a.gpu(), b.gpu()).to_vector<float>();
  REQUIRE(cpu.size() == gpu.size());
  double worst = 0;
  for (size_t i = 0; i < cpu.size(); ++i) {
    // Relative error, floored at magnitude 1 so entries that cancel to near 0 do not divide by ~0.
    worst = std::max(worst,
                     std::abs(double(gpu[i]) - cpu[i]) / std::max(1.0, std::abs(double(cpu[i]))));
  }
  // float32 sums of 256 products in another order differ by a few 1e-6 (5e-6 on an H200);
  // TF32's 10-bit mantissa would differ by ~1e-3.
  CHECK(worst < 5e-5);
  cuda::set_allow_tf32(true);
  CHECK(cuda::allow_tf32());
  const std::vector<float> tf32 = matmul(a.gpu(), b.gpu()).to_vector<float>();
  cuda::set_allow_tf32(false);
  CHECK_FALSE(cuda::allow_tf32());
  double tf32_worst = 0;
  for (size_t i = 0; i < cpu.size(); ++i) {
    tf32_worst = std::max(
        tf32_worst, std::abs(double(tf32[i]) - cpu[i]) / std::max(1.0, std::abs(double(cpu[i]))));
  }
  CHECK(tf32_worst < 1e-1);  // TF32 is still a matmul, only rounder
#endif
}

}  // namespace
}  // namespace duet
