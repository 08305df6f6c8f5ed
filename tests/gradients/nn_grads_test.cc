// Gradients of the nn ops (ops/nn/nn_grads.cc) against finite differences, first and second
// order, and of the composite functions built on them (batch_norm, clip_by_norm).
#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "tests/gradients/gradient_checker.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

using Inputs = std::vector<Tensor>;

// Attr positions of FusedBatchNormV3 (tests/ops/nn/attr_positions_test.cc pins them).
constexpr int kBatchNormEpsilon = 2;
constexpr int kBatchNormExponentialAvgFactor = 3;
constexpr int kBatchNormIsTraining = 5;

// Every output of `op` on `inputs`: the cross-entropy op functions return only the loss, and
// fused_batch_norm() cannot set exponential_avg_factor.
std::vector<Tensor> RunAll(OpCall& call) {
  OutputList out = RunOp(call);
  return std::vector<Tensor>(out.begin(), out.end());
}

std::vector<Tensor> CrossEntropyOutputs(const char* op, const Tensor& features,
                                        const Tensor& labels) {
  OpCall call(OpRegistry::Global().Find(op), {features, labels}, {});
  return RunAll(call);
}

// All six outputs of FusedBatchNormV3 on x, scale, offset, mean, variance.
std::vector<Tensor> BatchNormOutputs(const Inputs& in, bool training, float factor = 1.0f) {
  OpCall call(OpRegistry::Global().Find("FusedBatchNormV3"), {in[0], in[1], in[2], in[3], in[4]},
              {});
  call.attrs[kBatchNormEpsilon] = 0.01f;
  call.attrs[kBatchNormExponentialAvgFactor] = factor;
  call.attrs[kBatchNormIsTraining] = training;
  return RunAll(call);
}

// ---- MatMul ----

TestFn MatMulFn(bool ta, bool tb) {
  return [=](const Inputs& x) { return Inputs{matmul(x[0], x[1], ta, tb)}; };
}

DUET_GRADIENT_TEST("MatMul", "no transposes") {
  CheckGradients("MatMul", MatMulFn(false, false),
                 {RandomInput({3, 2}, 1), RandomInput({2, 4}, 2)});
}

DUET_GRADIENT_TEST("MatMul", "transpose_a") {
  CheckGradients("MatMul", MatMulFn(true, false), {RandomInput({3, 2}, 1), RandomInput({3, 4}, 2)});
}

DUET_GRADIENT_TEST("MatMul", "transpose_b") {
  CheckGradients("MatMul", MatMulFn(false, true), {RandomInput({2, 3}, 1), RandomInput({4, 3}, 2)});
}

DUET_GRADIENT_TEST("MatMul", "transpose_a and transpose_b") {
  CheckGradients("MatMul", MatMulFn(true, true), {RandomInput({3, 2}, 1), RandomInput({4, 3}, 2)});
}

DUET_GRADIENT_TEST("MatMul", "vector-shaped operands") {
  CheckGradients("MatMul", MatMulFn(false, false),
                 {RandomInput({1, 5}, 3), RandomInput({5, 1}, 4)});
}

DUET_GRADIENT_TEST("MatMul", "second order, every transpose combination") {
  for (const bool ta : {false, true}) {
    for (const bool tb : {false, true}) {
      INFO("transpose_a " << ta << ", transpose_b " << tb);
      const Shape a = ta ? Shape{3, 2} : Shape{2, 3};
      const Shape b = tb ? Shape{4, 3} : Shape{3, 4};
      CheckSecondOrderGradients("MatMul", MatMulFn(ta, tb), {RandomInput(a, 5), RandomInput(b, 6)});
    }
  }
}

// ---- BatchMatMulV2 ----

DUET_GRADIENT_TEST("BatchMatMulV2", "broadcast batch dims") {
  CheckGradients("BatchMatMulV2", MatMulFn(false, false),
                 {RandomInput({2, 1, 3, 4}, 1), RandomInput({3, 4, 5}, 2)});
}

DUET_GRADIENT_TEST("BatchMatMulV2", "same batch dims") {
  CheckGradients("BatchMatMulV2", MatMulFn(false, false),
                 {RandomInput({2, 3, 4}, 1), RandomInput({2, 4, 2}, 2)});
}

DUET_GRADIENT_TEST("BatchMatMulV2", "adj_x, broadcast batch dims") {
  CheckGradients("BatchMatMulV2", MatMulFn(true, false),
                 {RandomInput({2, 1, 4, 3}, 1), RandomInput({3, 4, 5}, 2)});
}

DUET_GRADIENT_TEST("BatchMatMulV2", "adj_y, a matrix times a batch") {
  CheckGradients("BatchMatMulV2", MatMulFn(false, true),
                 {RandomInput({3, 4}, 1), RandomInput({2, 5, 4}, 2)});
}

DUET_GRADIENT_TEST("BatchMatMulV2", "adj_x and adj_y, both operands broadcast") {
  CheckGradients("BatchMatMulV2", MatMulFn(true, true),
                 {RandomInput({1, 2, 4, 3}, 1), RandomInput({3, 1, 5, 4}, 2)});
}

DUET_GRADIENT_TEST("BatchMatMulV2", "second order, broadcast batch dims") {
  CheckSecondOrderGradients("BatchMatMulV2", MatMulFn(false, true),
                            {RandomInput({2, 1, 2, 3}, 1), RandomInput({2, 4, 3}, 2)});
}

// ---- BiasAdd ----

DUET_GRADIENT_TEST("BiasAdd", "matrix") {
  CheckGradients("BiasAdd", [](const Inputs& x) { return Inputs{bias_add(x[0], x[1])}; },
                 {RandomInput({3, 4}, 1), RandomInput({4}, 2)});
}

DUET_GRADIENT_TEST("BiasAdd", "NHWC") {
  CheckGradients("BiasAdd", [](const Inputs& x) { return Inputs{bias_add(x[0], x[1])}; },
                 {RandomInput({2, 3, 2, 4}, 1), RandomInput({4}, 2)});
}

// ---- TopKV2 ----

DUET_GRADIENT_TEST("TopKV2", "rows of a 3-D input, int32 and int64 indices") {
  CheckGradients("TopKV2", [](const Inputs& x) { return Inputs{top_k(x[0], 2).values}; },
                 {RandomInput({2, 3, 5}, 1)});
  CheckGradients("TopKV2",
                 [](const Inputs& x) { return Inputs{top_k(x[0], 3, true, kInt64).values}; },
                 {RandomInput({4, 3}, 2)});
}

// ---- Softmax, LogSoftmax ----

const TestFn kSoftmax = [](const Inputs& x) { return Inputs{softmax(x[0])}; };
const TestFn kLogSoftmax = [](const Inputs& x) { return Inputs{log_softmax(x[0])}; };

DUET_GRADIENT_TEST("Softmax", "matrix") {
  CheckGradients("Softmax", kSoftmax, {RandomInput({3, 5}, 1, -3, 3)});
}

DUET_GRADIENT_TEST("Softmax", "rank 3 and a vector") {
  CheckGradients("Softmax", kSoftmax, {RandomInput({2, 3, 4}, 2, -3, 3)});
  CheckGradients("Softmax", kSoftmax, {RandomInput({6}, 3, -3, 3)});
}

DUET_GRADIENT_TEST("Softmax", "second order") {
  CheckSecondOrderGradients("Softmax", kSoftmax, {RandomInput({3, 4}, 4, -2, 2)});
}

DUET_GRADIENT_TEST("LogSoftmax", "matrix") {
  CheckGradients("LogSoftmax", kLogSoftmax, {RandomInput({3, 5}, 1, -3, 3)});
}

DUET_GRADIENT_TEST("LogSoftmax", "rank 3 and a vector") {
  CheckGradients("LogSoftmax", kLogSoftmax, {RandomInput({2, 3, 4}, 2, -3, 3)});
  CheckGradients("LogSoftmax", kLogSoftmax, {RandomInput({6}, 3, -3, 3)});
}

DUET_GRADIENT_TEST("LogSoftmax", "second order") {
  CheckSecondOrderGradients("LogSoftmax", kLogSoftmax, {RandomInput({3, 4}, 4, -2, 2)});
}

// ---- SoftmaxCrossEntropyWithLogits ----

// Rows that are probability distributions.
Tensor DistributionLabels(const Shape& shape, int64_t seed) {
  return softmax(RandomInput(shape, seed, -2, 2));
}

const TestFn kCrossEntropyLoss = [](const Inputs& x) {
  return Inputs{softmax_cross_entropy_with_logits(x[1], x[0])};
};
const TestFn kCrossEntropyBoth = [](const Inputs& x) {
  return CrossEntropyOutputs("SoftmaxCrossEntropyWithLogits", x[0], x[1]);
};

DUET_GRADIENT_TEST("SoftmaxCrossEntropyWithLogits", "loss, distribution labels") {
  CheckGradients("SoftmaxCrossEntropyWithLogits", kCrossEntropyLoss,
                 {RandomInput({3, 5}, 1, -3, 3), DistributionLabels({3, 5}, 2)});
}

// The loss the kernel computes is -sum(labels * log_softmax) for any labels; its gradient must
// follow it when rows do not sum to 1.
DUET_GRADIENT_TEST("SoftmaxCrossEntropyWithLogits", "loss, labels that are not distributions") {
  CheckGradients("SoftmaxCrossEntropyWithLogits", kCrossEntropyLoss,
                 {RandomInput({4, 3}, 3, -3, 3), RandomInput({4, 3}, 4, 0, 2)});
}

DUET_GRADIENT_TEST("SoftmaxCrossEntropyWithLogits", "loss and backprop both used") {
  CheckGradients("SoftmaxCrossEntropyWithLogits", kCrossEntropyBoth,
                 {RandomInput({3, 4}, 5, -3, 3), DistributionLabels({3, 4}, 6)});
}

DUET_GRADIENT_TEST("SoftmaxCrossEntropyWithLogits", "backprop only") {
  CheckGradients(
      "SoftmaxCrossEntropyWithLogits",
      [](const Inputs& x) {
        return Inputs{CrossEntropyOutputs("SoftmaxCrossEntropyWithLogits", x[0], x[1])[1]};
      },
      {RandomInput({2, 4}, 7, -3, 3), DistributionLabels({2, 4}, 8)});
}

DUET_GRADIENT_TEST("SoftmaxCrossEntropyWithLogits", "second order, loss") {
  CheckSecondOrderGradients("SoftmaxCrossEntropyWithLogits", kCrossEntropyLoss,
                            {RandomInput({3, 4}, 9, -2, 2), RandomInput({3, 4}, 10, 0, 1)});
}

DUET_GRADIENT_TEST("SoftmaxCrossEntropyWithLogits", "second order, loss and backprop") {
  CheckSecondOrderGradients("SoftmaxCrossEntropyWithLogits", kCrossEntropyBoth,
                            {RandomInput({2, 4}, 11, -2, 2), DistributionLabels({2, 4}, 12)});
}

// Issue 37: labels and logits that broadcast (a label row, a label column, a logits row); each
// gradient comes back in its input's shape.
DUET_GRADIENT_TEST("SoftmaxCrossEntropyWithLogits", "broadcast labels and logits") {
  CheckGradients("SoftmaxCrossEntropyWithLogits", kCrossEntropyBoth,
                 {RandomInput({3, 4}, 13, -3, 3), RandomInput({1, 4}, 14, 0, 1)});
  CheckGradients("SoftmaxCrossEntropyWithLogits", kCrossEntropyBoth,
                 {RandomInput({1, 4}, 15, -3, 3), RandomInput({3, 4}, 16, 0, 1)});
  CheckGradients("SoftmaxCrossEntropyWithLogits", kCrossEntropyLoss,
                 {RandomInput({3, 4}, 17, -3, 3), RandomInput({3, 1}, 18, 0, 1)});
  CheckGradients("SoftmaxCrossEntropyWithLogits", kCrossEntropyLoss,
                 {RandomInput({3, 1}, 19, -3, 3), RandomInput({1, 4}, 20, 0, 1)});
}

// ---- SparseSoftmaxCrossEntropyWithLogits ----

Tensor ClassLabels() { return from_vector(std::vector<int64_t>{0, 3, 1}, Shape{3}); }

const TestFn kSparseLoss = [](const Inputs& x) {
  return Inputs{sparse_softmax_cross_entropy_with_logits(x[1], x[0])};
};
const TestFn kSparseBoth = [](const Inputs& x) {
  return CrossEntropyOutputs("SparseSoftmaxCrossEntropyWithLogits", x[0], x[1]);
};

DUET_GRADIENT_TEST("SparseSoftmaxCrossEntropyWithLogits", "loss, int64 labels") {
  CheckGradients("SparseSoftmaxCrossEntropyWithLogits", kSparseLoss,
                 {RandomInput({3, 4}, 1, -3, 3), ClassLabels()});
}

DUET_GRADIENT_TEST("SparseSoftmaxCrossEntropyWithLogits", "loss, int32 labels") {
  CheckGradients("SparseSoftmaxCrossEntropyWithLogits", kSparseLoss,
                 {RandomInput({4, 2}, 2, -3, 3), from_vector(std::vector<int32_t>{1, 0, 0, 1})});
}

DUET_GRADIENT_TEST("SparseSoftmaxCrossEntropyWithLogits", "loss and backprop both used") {
  CheckGradients("SparseSoftmaxCrossEntropyWithLogits", kSparseBoth,
                 {RandomInput({3, 4}, 3, -3, 3), ClassLabels()});
}

DUET_GRADIENT_TEST("SparseSoftmaxCrossEntropyWithLogits", "second order") {
  CheckSecondOrderGradients("SparseSoftmaxCrossEntropyWithLogits", kSparseLoss,
                            {RandomInput({3, 4}, 4, -2, 2), ClassLabels()});
  CheckSecondOrderGradients("SparseSoftmaxCrossEntropyWithLogits", kSparseBoth,
                            {RandomInput({3, 4}, 5, -2, 2), ClassLabels()});
}

// ---- FusedBatchNormV3 ----

// x (2, 2, 3, 4), scale, offset, and the given mean/variance (empty: training needs none).
Inputs BatchNormInputs(bool with_statistics) {
  const Shape stats = with_statistics ? Shape{4} : Shape{0};
  return {RandomInput({2, 2, 3, 4}, 1, -2, 2), RandomInput({4}, 2, 0.5, 1.5), RandomInput({4}, 3),
          RandomInput(stats, 4), RandomInput(stats, 5, 0.5, 1.5)};
}

const TestFn kBatchNormTrainingY = [](const Inputs& x) {
  return Inputs{BatchNormOutputs(x, /*training=*/true)[0]};
};
const TestFn kBatchNormTrainingAll = [](const Inputs& x) {
  return BatchNormOutputs(x, /*training=*/true);
};
const TestFn kBatchNormInferenceAll = [](const Inputs& x) {
  return BatchNormOutputs(x, /*training=*/false);
};

DUET_GRADIENT_TEST("FusedBatchNormV3", "training, y") {
  CheckGradients("FusedBatchNormV3", kBatchNormTrainingY, BatchNormInputs(false));
}

// The statistic outputs depend on x too (reserve spaces included).
DUET_GRADIENT_TEST("FusedBatchNormV3", "training, every output") {
  CheckGradients("FusedBatchNormV3", kBatchNormTrainingAll, BatchNormInputs(false));
}

DUET_GRADIENT_TEST("FusedBatchNormV3", "training, only the statistics") {
  CheckGradients("FusedBatchNormV3",
                 [](const Inputs& x) {
                   const std::vector<Tensor> out = BatchNormOutputs(x, true);
                   return Inputs{out[1], out[2], out[5]};
                 },
                 BatchNormInputs(false), {.wrt = {0}});
}

DUET_GRADIENT_TEST("FusedBatchNormV3", "training, exponential_avg_factor blends the statistics") {
  CheckGradients(
      "FusedBatchNormV3", [](const Inputs& x) { return BatchNormOutputs(x, true, 0.25f); },
      BatchNormInputs(true));
}

DUET_GRADIENT_TEST("FusedBatchNormV3", "training, fused_batch_norm") {
  CheckGradients("FusedBatchNormV3",
                 [](const Inputs& x) {
                   const FusedBatchNormResult r =
                       fused_batch_norm(x[0], x[1], x[2], x[3], x[4], 1e-3f, true);
                   return Inputs{r.y, r.batch_mean, r.batch_variance};
                 },
                 {RandomInput({3, 1, 2, 2}, 6), RandomInput({2}, 7), RandomInput({2}, 8),
                  RandomInput({0}, 9), RandomInput({0}, 10)});
}

DUET_GRADIENT_TEST("FusedBatchNormV3", "inference, y") {
  CheckGradients(
      "FusedBatchNormV3",
      [](const Inputs& x) { return Inputs{BatchNormOutputs(x, /*training=*/false)[0]}; },
      BatchNormInputs(true));
}

DUET_GRADIENT_TEST("FusedBatchNormV3", "inference, every output") {
  CheckGradients("FusedBatchNormV3", kBatchNormInferenceAll, BatchNormInputs(true));
}

DUET_GRADIENT_TEST("FusedBatchNormV3", "second order, training, y") {
  CheckSecondOrderGradients("FusedBatchNormV3", kBatchNormTrainingY, BatchNormInputs(false));
}

DUET_GRADIENT_TEST("FusedBatchNormV3", "second order, training, every output") {
  CheckSecondOrderGradients("FusedBatchNormV3", kBatchNormTrainingAll, BatchNormInputs(false));
}

DUET_GRADIENT_TEST("FusedBatchNormV3", "second order, inference, every output") {
  CheckSecondOrderGradients("FusedBatchNormV3", kBatchNormInferenceAll, BatchNormInputs(true));
}

// float32 statistics and float32/bfloat16 x take the same gradient path (bfloat16 through casts);
// compare them with float64.
TEST_CASE("FusedBatchNormV3 gradient: float32 and bfloat16 agree with float64", "[gradient]") {
  const Inputs in = BatchNormInputs(false);
  const auto grads = [&](DType t) {
    Inputs x = in;
    if (t != kFloat64) {
      for (size_t i = 0; i < x.size(); ++i) x[i] = cast(in[i], i == 0 ? t : kFloat32);
    }
    GradientTape tape;
    for (const Tensor& v : x) tape.watch(v);
    const std::vector<Tensor> out = BatchNormOutputs(x, true);
    const Tensor y = cast(out[0], kFloat64);
    const Tensor loss = reduce_sum(y * RandomInput(y.shape(), 11)) +
                        reduce_sum(cast(out[1], kFloat64) * RandomInput({4}, 12));
    return tape.gradient(loss, {x[0], x[1], x[2]});
  };
  const std::vector<Tensor> want = grads(kFloat64);
  for (const DType t : {kFloat32, kBFloat16}) {
    const std::vector<Tensor> got = grads(t);
    const double tol = t == kFloat32 ? 1e-4 : 0.1;
    for (size_t i = 0; i < got.size(); ++i) {
      INFO(DTypeName(t) << " input " << i);
      REQUIRE(got[i].dtype() == (i == 0 ? t : kFloat32));
      const std::vector<double> a = ToDoubles(got[i]), b = ToDoubles(want[i]);
      for (size_t j = 0; j < a.size(); ++j)
        CHECK(std::abs(a[j] - b[j]) <= tol * (1 + std::abs(b[j])));
    }
  }
}

// Summations in the gradients of BiasAdd, Softmax, LogSoftmax and BatchMatMulV2 must work for
// bfloat16, which Sum has no kernel for.
TEST_CASE("nn gradients: bfloat16 agrees with float64", "[gradient]") {
  const Tensor a = RandomInput({2, 3, 4}, 1), b = RandomInput({4}, 2), c = RandomInput({4, 2}, 3);
  const auto grads = [&](DType t) {
    const Tensor x = cast(a, t), bias = cast(b, t), m = cast(c, t);
    GradientTape tape;
    for (const Tensor& v : {x, bias, m}) tape.watch(v);
    const Tensor h = bias_add(x, bias);
    const Tensor y = matmul(softmax(h) + log_softmax(h), m);
    const Tensor loss = reduce_sum(cast(y, kFloat64) * RandomInput({2, 3, 2}, 4));
    return tape.gradient(loss, {x, bias, m});
  };
  const std::vector<Tensor> want = grads(kFloat64), got = grads(kBFloat16);
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("input " << i);
    REQUIRE(got[i].dtype() == kBFloat16);
    const std::vector<double> x = ToDoubles(got[i]), y = ToDoubles(want[i]);
    for (size_t j = 0; j < x.size(); ++j)
      CHECK(std::abs(x[j] - y[j]) <= 0.05 * (1 + std::abs(y[j])));
  }
}

// ---- Composite functions (not ops: checked through an op they run) ----

DUET_GRADIENT_TEST("FusedBatchNormV3", "composite batch_norm_training") {
  CheckGradients(
      "FusedBatchNormV3",
      [](const Inputs& x) {
        const BatchNormTraining r = batch_norm_training(x[0], x[1], x[2], 1e-3);
        return Inputs{r.y, r.batch_mean, r.batch_variance};
      },
      {RandomInput({6, 3}, 1, -2, 2), RandomInput({3}, 2), RandomInput({3}, 3, 0.5, 1.5)});
}

DUET_GRADIENT_TEST("FusedBatchNormV3", "composite batch_norm (inference), rank 3") {
  CheckGradients(
      "FusedBatchNormV3",
      [](const Inputs& x) { return Inputs{batch_norm(x[0], x[1], x[2], x[3], x[4], 1e-3)}; },
      {RandomInput({2, 3, 4}, 1, -2, 2), RandomInput({4}, 2), RandomInput({4}, 3, 0.5, 1.5),
       RandomInput({4}, 4), RandomInput({4}, 5, 0.5, 1.5)});
}

// L2 norms of the rows of a (rows, cols) tensor, on the host.
std::vector<double> RowNorms(const Tensor& t) {
  const std::vector<double> v = t.to_vector<double>();
  const int64_t cols = t.shape()[1];
  std::vector<double> norms(t.shape()[0], 0.0);
  for (size_t i = 0; i < v.size(); ++i) norms[i / cols] += v[i] * v[i];
  for (double& n : norms) n = std::sqrt(n);
  return norms;
}

// clip_by_norm records Maximum (clipped or not), so that is the op the check requires.
TEST_CASE("clip_by_norm gradient: clipping and not clipping", "[gradient]") {
  const Tensor t = RandomInput({3, 4}, 1);
  const double norm = std::sqrt(reduce_sum(t * t).item<double>());
  for (const double clip : {0.5 * norm, 2.0 * norm}) {
    INFO("norm " << norm << ", clip_norm " << clip);
    CheckGradients("Maximum", [clip](const Inputs& x) { return Inputs{clip_by_norm(x[0], clip)}; },
                   {t});
  }
}

TEST_CASE("clip_by_norm gradient: per-row norms, some rows clipped", "[gradient]") {
  const Tensor t = RandomInput({4, 3}, 2);
  std::vector<double> norms = RowNorms(t);
  std::sort(norms.begin(), norms.end());
  // Between the second and third smallest row norms: two rows clip, two do not.
  const double clip = (norms[1] + norms[2]) / 2;
  REQUIRE(norms[2] - norms[1] > 0.05);
  CheckGradients("Maximum",
                 [clip](const Inputs& x) { return Inputs{clip_by_norm(x[0], clip, {1})}; }, {t});
  CheckGradients("Sqrt", [clip](const Inputs& x) { return Inputs{clip_by_norm(x[0], clip, {1})}; },
                 {t});
}

}  // namespace
}  // namespace duet::testing
