// _FusedMatMul through fused_matmul(): equal to MatMul -> BiasAdd (-> residual add) -> activation
// run op by op, for
// every supported fused_ops, every transpose, several shapes and dtypes; empty sums; shape errors.
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/nn/fused_nn_ops.h"
#include "ops/nn/nn_ops.h"
#include "tests/ops/nn/fusion_reference.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::MakeTensor;
using testing::ModPattern;

// An m x n operand, stored transposed (n x m) when `transposed`; values in [-1, 1] whose products
// over k ~ 30 reach past Relu6's 6 and below zero.
Tensor MatrixOperand(DType dt, int64_t rows, int64_t cols, bool transposed, int seed) {
  const Shape shape = transposed ? Shape{cols, rows} : Shape{rows, cols};
  return MakeTensor(dt, shape, ModPattern(rows * cols, 7 + 2 * seed, 17, 8, 8));
}

Tensor Bias(DType dt, int64_t n) { return MakeTensor(dt, {n}, ModPattern(n, 5, 11, 5, 2)); }

// Checks fused_matmul against the unfused ops for one problem.
void ExpectMatchesUnfused(DType dt, int64_t m, int64_t k, int64_t n, bool ta, bool tb,
                          const std::vector<std::string>& fused_ops, double tol,
                          float alpha = 0.2f) {
  INFO(DTypeName(dt) << " " << m << "x" << k << "x" << n << " transpose_a=" << ta
                     << " transpose_b=" << tb << " fused_ops " << fused_ops.back());
  const Tensor a = MatrixOperand(dt, m, k, ta, 0), b = MatrixOperand(dt, k, n, tb, 1);
  const Tensor product = matmul(a, b, ta, tb);
  const auto args = testing::FusionArgs(fused_ops, Bias(dt, n), product.shape());
  testing::ExpectTensorNear(fused_matmul(a, b, args, fused_ops, ta, tb, alpha),
                            testing::UnfusedEpilogue(product, args, fused_ops, alpha), tol);
}

TEST_CASE("_FusedMatMul equals MatMul, BiasAdd, the residual add and activation for every fusion") {
  const std::vector<std::vector<int64_t>> shapes = {{3, 4, 5}, {17, 33, 9}, {64, 96, 48}};
  for (DType dt : {kFloat32, kFloat64}) {
    for (const auto& fused_ops : testing::SupportedFusedOps()) {
      for (const auto& s : shapes) {
        for (bool ta : {false, true}) {
          for (bool tb : {false, true}) {
            ExpectMatchesUnfused(dt, s[0], s[1], s[2], ta, tb, fused_ops,
                                 dt == kFloat32 ? 1e-5 : 1e-12);
          }
        }
      }
    }
  }
}

TEST_CASE("bfloat16 _FusedMatMul rounds once where the unfused ops round three times") {
  for (const auto& fused_ops : testing::SupportedFusedOps()) {
    ExpectMatchesUnfused(kBFloat16, 17, 33, 9, false, false, fused_ops, 2e-2);
    ExpectMatchesUnfused(kBFloat16, 8, 16, 24, true, true, fused_ops, 2e-2);
  }
}

TEST_CASE("_FusedMatMul caches one primitive per activation and LeakyRelu slope") {
  // Same shapes back to back: a plan keyed without the epilogue would reuse the first one.
  for (float alpha : {0.2f, 0.5f, 0.2f}) {
    ExpectMatchesUnfused(kFloat32, 6, 7, 8, false, false, {"BiasAdd", "LeakyRelu"}, 1e-5, alpha);
    ExpectMatchesUnfused(kFloat32, 6, 7, 8, false, false, {"BiasAdd", "Relu"}, 1e-5, alpha);
    ExpectMatchesUnfused(kFloat32, 6, 7, 8, false, false, {"BiasAdd"}, 1e-5, alpha);
  }
  const Tensor a = MatrixOperand(kFloat32, 6, 7, false, 0),
               b = MatrixOperand(kFloat32, 7, 8, false, 1);
  testing::ExpectTensorNear(fused_matmul(a, b, {Bias(kFloat32, 8)}, {"BiasAdd"}),
                            bias_add(matmul(a, b), Bias(kFloat32, 8)), 1e-6);
  // MatMul's plans are apart from the fused ones: a zero bias changes nothing.
  testing::ExpectTensorNear(
      fused_matmul(a, b, {MakeTensor(kFloat32, {8}, std::vector<double>(8))}, {"BiasAdd"}),
      matmul(a, b), 0);
}

TEST_CASE("_FusedMatMul with an empty inner dim is the activation of the bias") {
  for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
    INFO(DTypeName(dt));
    const Tensor a = MakeTensor(dt, {2, 0}, {}), b = MakeTensor(dt, {0, 3}, {});
    const Tensor bias = MakeTensor(dt, {3}, {-1.5, 0.5, 7});
    testing::ExpectTensor(fused_matmul(a, b, {bias}, {"BiasAdd", "Relu6"}), dt, {2, 3},
                          {0, 0.5, 6, 0, 0.5, 6});
    const Tensor empty = fused_matmul(MakeTensor(dt, {0, 4}, {}), MatrixOperand(dt, 4, 3, false, 1),
                                      {bias}, {"BiasAdd"});
    CHECK(empty.shape() == Shape({0, 3}));
  }
}

TEST_CASE("_FusedMatMul rejects fusions, biases and arg counts it does not run") {
  const Tensor a = MatrixOperand(kFloat32, 2, 3, false, 0),
               b = MatrixOperand(kFloat32, 3, 4, false, 1);
  const Tensor bias = Bias(kFloat32, 4);
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {}, {"Relu"}, {"BiasAdd", "Gelu"}, {"BiasAdd", "Relu", "Tanh"}, {"Relu", "BiasAdd"}}) {
    testing::ExpectError(
        [&] { fused_matmul(a, b, {bias}, bad); },
        {"_FusedMatMul", "fused_ops", "is not supported", "BiasAdd", "Relu6", "(2, 3)", "(3, 4)"});
  }
  testing::ExpectError(
      [&] {
        fused_matmul(a, b, {bias}, {"BiasAdd", "Gelu"});
      },
      {"[\"BiasAdd\", \"Gelu\"]"});
  testing::ExpectError(
      [&] {
        fused_matmul(a, b, {Bias(kFloat32, 3)}, {"BiasAdd", "Relu"});
      },
      {"_FusedMatMul", "bias", "4", "(2, 4)", "got shape (3,)"});
  testing::ExpectError(
      [&] {
        fused_matmul(a, b, {MakeTensor(kFloat32, {1, 4}, ModPattern(4, 1, 3, 1, 1))}, {"BiasAdd"});
      },
      {"_FusedMatMul", "must be 1-D", "got shape (1, 4)"});
  testing::ExpectError([&] { fused_matmul(a, b, {}, {"BiasAdd"}); },
                       {"_FusedMatMul", "takes 1 arg (the bias)", "num_args=0"});
  testing::ExpectError(
      [&] {
        fused_matmul(a, b, {bias, bias}, {"BiasAdd"});
      },
      {"_FusedMatMul", "takes 1 arg (the bias)", "num_args=2"});
  testing::ExpectError([&] { fused_matmul(a, a, {bias}, {"BiasAdd"}); },
                       {"_FusedMatMul", "inner dimensions do not match: 3 vs 2"});
  testing::ExpectError([&] { fused_matmul(a, b, {Bias(kFloat64, 4)}, {"BiasAdd"}); },
                       {"_FusedMatMul", "float64", "float32"});
  testing::ExpectError(
      [&] {
        fused_matmul(MakeTensor(kFloat32, {2}, {1, 2}), b, {bias}, {"BiasAdd"});
      },
      {"_FusedMatMul", "must be 2-D", "(2,)"});
}

}  // namespace
}  // namespace duet
