// CUDA Softmax, LogSoftmax and the activations (Relu, Relu6, Elu, Sigmoid, Tanh, Softplus,
// ReluGrad) against the CPU kernels.
//
// Tolerances: float32 1e-5 (CUDA's expf/tanhf/log1pf are within 2 ulp of the CPU's SLEEF
// functions); float64 1e-12; float16 and bfloat16 2e-2 (both compute in float32 and round once).
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/cuda_test_util.h"

namespace duet {
namespace {

Tensor Random(const Shape& shape, int seed, DType dtype, double scale = 4) {
  const bool f64 = dtype == kFloat64;
  const Tensor t = random_uniform(shape, seed, f64 ? kFloat64 : kFloat32, -scale, scale);
  return f64 || dtype == kFloat32 ? t : cast(t, dtype);
}

double Tol(DType dtype) { return dtype == kFloat64 ? 1e-12 : dtype == kFloat32 ? 1e-5 : 2e-2; }

// Empty, a size that is not a multiple of the block size, and one large enough for many blocks.
const std::vector<Shape> kShapes = {Shape{0, 3}, Shape{7, 13}, Shape{3, 1000, 171}};

TEST_CASE("CUDA Softmax and LogSoftmax match the CPU over the last axis") {
  if (testing::SkipWithoutTestDevice()) return;
  int seed = 1;
  for (DType dtype : {kFloat32, kFloat64, kBFloat16}) {
    // Rows wider than a block, a single column, large logits (max shift), rank 1 and 3.
    for (const Shape& shape :
         {Shape{0, 5}, Shape{4, 1}, Shape{9, 1000}, Shape{3, 5, 2049}, Shape{17}, Shape{128, 10}}) {
      INFO(DTypeName(dtype) << " " << shape.str());
      testing::ExpectDeviceMatchesCpu(
          [](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{softmax(in[0]), log_softmax(in[0])};
          },
          {Random(shape, seed++, dtype, 50)}, Tol(dtype));
    }
  }
}

TEST_CASE("CUDA activations match the CPU for every dtype") {
  if (testing::SkipWithoutTestDevice()) return;
  int seed = 100;
  for (DType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    for (const Shape& shape : kShapes) {
      INFO(DTypeName(dtype) << " " << shape.str());
      testing::ExpectDeviceMatchesCpu(
          [](const std::vector<Tensor>& in) {
            const Tensor& x = in[0];
            return std::vector<Tensor>{relu(x),     relu6(x),           elu(x), sigmoid(x), tanh(x),
                                       softplus(x), relu_grad(in[1], x)};
          },
          {Random(shape, seed++, dtype, 8), Random(shape, seed++, dtype)}, Tol(dtype));
    }
  }
}

TEST_CASE("CUDA Relu, Relu6 and ReluGrad match the CPU for integers") {
  if (testing::SkipWithoutTestDevice()) return;
  int seed = 200;
  for (DType dtype : {kInt32, kInt64}) {
    for (const Shape& shape : kShapes) {
      INFO(DTypeName(dtype) << " " << shape.str());
      const Tensor x = cast(Random(shape, seed++, kFloat32, 10), dtype);
      const Tensor g = cast(Random(shape, seed++, kFloat32, 10), dtype);
      testing::ExpectDeviceMatchesCpu(
          [](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{relu(in[0]), relu6(in[0]), relu_grad(in[1], in[0])};
          },
          {x, g}, 0);
    }
  }
}

}  // namespace
}  // namespace duet
