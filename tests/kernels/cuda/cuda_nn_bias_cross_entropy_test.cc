// CUDA BiasAdd, SoftmaxCrossEntropyWithLogits and SparseSoftmaxCrossEntropyWithLogits against
// the CPU kernels.
//
// Tolerances: float32 1e-5 (the losses sum in double on both devices); float64 1e-12; half types
// 2e-2; integers exact.
#include <catch2/catch.hpp>

#include "duet.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "tests/cuda_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

Tensor Random(const Shape& shape, int seed, DType dtype, double scale = 4) {
  const bool f64 = dtype == kFloat64;
  const Tensor t = random_uniform(shape, seed, f64 ? kFloat64 : kFloat32, -scale, scale);
  return f64 || dtype == kFloat32 ? t : cast(t, dtype);
}

double Tol(DType dtype) {
  if (dtype == kInt32 || dtype == kInt64) return 0;
  return dtype == kFloat64 ? 1e-12 : dtype == kFloat32 ? 1e-5 : 2e-2;
}

TEST_CASE("CUDA BiasAdd matches the CPU for every dtype") {
  if (testing::SkipWithoutTestDevice()) return;
  int seed = 1;
  for (DType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64}) {
    for (const Shape& shape :
         {Shape{0, 4}, Shape{7, 13}, Shape{2, 5, 7, 3}, Shape{64, 1000, 3}, Shape{3, 1}}) {
      INFO(DTypeName(dtype) << " " << shape.str());
      testing::ExpectDeviceMatchesCpu(
          [](const std::vector<Tensor>& in) { return std::vector<Tensor>{bias_add(in[0], in[1])}; },
          {Random(shape, seed++, dtype, 20), Random({shape[shape.rank() - 1]}, seed++, dtype, 20)},
          Tol(dtype));
    }
  }
}

// Labels: a probability distribution per row.
Tensor Distribution(const Shape& shape, int seed, DType dtype) {
  return softmax(Random(shape, seed, dtype));
}

TEST_CASE("CUDA softmax cross-entropies match the CPU") {
  if (testing::SkipWithoutTestDevice()) return;
  int seed = 100;
  for (DType dtype : {kFloat32, kFloat64}) {
    for (const Shape& shape : {Shape{0, 5}, Shape{1, 1}, Shape{9, 13}, Shape{300, 1000}}) {
      INFO(DTypeName(dtype) << " " << shape.str());
      testing::ExpectDeviceMatchesCpu(
          [](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{softmax_cross_entropy_with_logits(in[1], in[0])};
          },
          {Random(shape, seed++, dtype, 30), Distribution(shape, seed++, dtype)}, Tol(dtype));
      for (DType label_type : {kInt32, kInt64}) {
        const Tensor labels = cast(
            floor(random_uniform({shape[0]}, seed++, kFloat32, 0, static_cast<double>(shape[1]))),
            label_type);
        testing::ExpectDeviceMatchesCpu(
            [](const std::vector<Tensor>& in) {
              return std::vector<Tensor>{sparse_softmax_cross_entropy_with_logits(in[1], in[0])};
            },
            {Random(shape, seed++, dtype, 30), labels}, Tol(dtype));
      }
    }
  }
}

// Issue 37: the shifted logits' loss at huge logits, and labels and logits broadcast to 2-D.
TEST_CASE("CUDA softmax cross-entropy keeps huge logits' loss and broadcasts like the CPU") {
  if (testing::SkipWithoutTestDevice()) return;
  const auto both = [](const std::vector<Tensor>& in) {
    OpCall call(OpRegistry::Global().Find("SoftmaxCrossEntropyWithLogits"), {in[0], in[1]}, {});
    const OutputList out = RunOp(call);
    return std::vector<Tensor>{out[0], out[1]};
  };
  for (DType dtype : {kFloat32, kFloat64}) {
    INFO(DTypeName(dtype));
    testing::ExpectDeviceMatchesCpu(both,
                                    {testing::MakeTensor(dtype, {1, 3}, {1e30, 1e30, -1e30}),
                                     testing::MakeTensor(dtype, {1, 3}, {1, 0, 0})},
                                    Tol(dtype));
    int seed = 200;
    for (const auto& [logits, labels] : std::vector<std::pair<Shape, Shape>>{
             {{9, 13}, {1, 13}}, {{1, 13}, {9, 13}}, {{9, 13}, {9, 1}}, {{9, 13}, {13}}}) {
      INFO(logits.str() << " " << labels.str());
      testing::ExpectDeviceMatchesCpu(
          both, {Random(logits, seed++, dtype, 30), Distribution(labels, seed++, dtype)},
          Tol(dtype));
    }
  }
}

TEST_CASE("CUDA sparse cross-entropy gives NaN for an out-of-range label") {
  if (testing::SkipWithoutGpu()) return;
  const Tensor logits = random_uniform({3, 4}, 7, kFloat32, -1, 1).gpu();
  const Tensor labels = constant({0, 4, 2}).gpu();
  const std::vector<float> loss =
      sparse_softmax_cross_entropy_with_logits(labels, logits).to_vector<float>();
  CHECK_FALSE(std::isnan(loss[0]));
  CHECK(std::isnan(loss[1]));
  CHECK_FALSE(std::isnan(loss[2]));
}

}  // namespace
}  // namespace duet
