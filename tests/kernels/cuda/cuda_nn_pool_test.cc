// CUDA MaxPool, AvgPool, MaxPoolGrad, AvgPoolGrad and MaxPoolGradGrad, and their 3-D twins, against
// the CPU kernels.
//
// Tolerances: float32 1e-5 (max pooling is exact; averages and gradient sums differ only in
// summation order); float64 1e-12; bfloat16 2e-2.
#include <catch2/catch.hpp>

#include "duet.h"
#include "ops/nn/nn_backprop_ops.h"
#include "tests/cuda_test_util.h"

namespace duet {
namespace {

Tensor Random(const Shape& shape, int seed, DType dtype) {
  const Tensor t = random_uniform(shape, seed, dtype == kFloat64 ? kFloat64 : kFloat32, -1, 1);
  return dtype == kBFloat16 ? cast(t, kBFloat16) : t;
}

double Tol(DType dtype) { return dtype == kFloat64 ? 1e-12 : dtype == kBFloat16 ? 2e-2 : 1e-5; }

struct PoolCase {
  Shape input;
  std::vector<int64_t> ksize, strides;
  std::string padding;
};

// SAME with asymmetric padding, VALID, overlapping windows (stride < ksize), a large case with
// many blocks, and an empty batch.
std::vector<PoolCase> Cases() {
  return {{{2, 7, 9, 3}, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME"},
          {{2, 7, 9, 3}, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"},
          {{1, 10, 11, 5}, {1, 3, 2, 1}, {1, 1, 2, 1}, "VALID"},
          {{3, 6, 6, 2}, {1, 3, 3, 1}, {1, 1, 1, 1}, "SAME"},
          {{8, 33, 31, 17}, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"},
          {{0, 4, 4, 2}, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"}};
}

TEST_CASE("CUDA pooling and its gradients match the CPU") {
  if (testing::SkipWithoutTestDevice()) return;
  int seed = 1;
  for (DType dtype : {kFloat32, kFloat64, kBFloat16}) {
    for (const PoolCase& c : Cases()) {
      INFO(DTypeName(dtype) << " " << c.input.str() << " " << c.padding);
      const Tensor x = Random(c.input, seed++, dtype);
      testing::ExpectDeviceMatchesCpu(
          [&c](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{max_pool(in[0], c.ksize, c.strides, c.padding),
                                       avg_pool(in[0], c.ksize, c.strides, c.padding)};
          },
          {x}, Tol(dtype));
      const Tensor y = max_pool(x, c.ksize, c.strides, c.padding);
      const Tensor dy = Random(y.shape(), seed++, dtype);
      const Tensor ddx = Random(c.input, seed++, dtype);
      testing::ExpectDeviceMatchesCpu(
          [&c](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{
                max_pool_grad(in[0], in[1], in[2], c.ksize, c.strides, c.padding),
                avg_pool_grad(c.input, in[2], c.ksize, c.strides, c.padding),
                max_pool_grad_grad(in[0], in[1], in[3], c.ksize, c.strides, c.padding)};
          },
          {x, y, dy, ddx}, Tol(dtype));
    }
  }
}

// SAME with asymmetric padding, VALID with unequal strides, overlapping windows, a larger case and
// an empty batch. MaxPool3D and MaxPool3DGrad have no float64 (as in TensorFlow).
std::vector<PoolCase> Cases3D() {
  return {{{2, 5, 7, 9, 3}, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "SAME"},
          {{2, 5, 7, 6, 3}, {1, 3, 3, 2, 1}, {1, 2, 1, 2, 1}, "SAME"},
          {{1, 6, 10, 11, 5}, {1, 2, 3, 2, 1}, {1, 1, 1, 2, 1}, "VALID"},
          {{4, 16, 17, 15, 8}, {1, 3, 3, 3, 1}, {1, 2, 2, 2, 1}, "SAME"},
          {{0, 4, 4, 4, 2}, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "VALID"}};
}

TEST_CASE("CUDA 3-D pooling and its gradients match the CPU") {
  if (testing::SkipWithoutTestDevice()) return;
  int seed = 100;
  for (DType dtype : {kFloat32, kFloat64, kBFloat16}) {
    for (const PoolCase& c : Cases3D()) {
      INFO(DTypeName(dtype) << " " << c.input.str() << " " << c.padding);
      const Tensor x = Random(c.input, seed++, dtype);
      const Tensor y = avg_pool3d(x, c.ksize, c.strides, c.padding);
      const Tensor dy = Random(y.shape(), seed++, dtype);
      const Tensor ddx = Random(c.input, seed++, dtype);
      testing::ExpectDeviceMatchesCpu(
          [&c](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{
                avg_pool3d(in[0], c.ksize, c.strides, c.padding),
                avg_pool3d_grad(c.input, in[1], c.ksize, c.strides, c.padding)};
          },
          {x, dy}, Tol(dtype));
      if (dtype == kFloat64) continue;
      testing::ExpectDeviceMatchesCpu(
          [&c](const std::vector<Tensor>& in) {
            const Tensor pooled = max_pool3d(in[0], c.ksize, c.strides, c.padding);
            return std::vector<Tensor>{
                pooled, max_pool3d_grad(in[0], pooled, in[1], c.ksize, c.strides, c.padding),
                max_pool3d_grad_grad(in[0], pooled, in[2], c.ksize, c.strides, c.padding)};
          },
          {x, dy, ddx}, Tol(dtype));
    }
  }
}

TEST_CASE("CUDA MaxPoolGrad routes ties to the first maximum like the CPU") {
  if (testing::SkipWithoutTestDevice()) return;
  // All-equal windows: every window's gradient goes to its first cell.
  const Tensor x = constant(std::vector<float>(2 * 6 * 6 * 3, 1.0f), {2, 6, 6, 3});
  const Tensor dy = random_uniform({2, 3, 3, 3}, 7, kFloat32, -1, 1);
  testing::ExpectDeviceMatchesCpu(
      [](const std::vector<Tensor>& in) {
        const Tensor y = max_pool(in[0], {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME");
        return std::vector<Tensor>{
            max_pool_grad(in[0], y, in[1], {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME")};
      },
      {x, dy}, 1e-6);
}

}  // namespace
}  // namespace duet
