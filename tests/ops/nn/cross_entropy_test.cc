// SoftmaxCrossEntropyWithLogits and SparseSoftmaxCrossEntropyWithLogits: per-example losses vs
// the formula -sum(labels * log_softmax(logits)) evaluated in NumPy (testdata/gen_expected.py),
// both outputs, every dtype, stability, and errors (out-of-range sparse labels).
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::MakeTensor;
using testing::ModPattern;

Tensor Logits(DType dt) { return MakeTensor(dt, {3, 4}, ModPattern(12, 7, 11, 5, 2)); }

// Both outputs (loss, backprop) of `op_name` on (features, labels).
OutputList RunBoth(const char* op_name, const Tensor& features, const Tensor& labels) {
  OpCall call(OpRegistry::Global().Find(op_name), {features, labels}, OpSite());
  return RunOp(call);
}

TEST_CASE("SoftmaxCrossEntropyWithLogits matches the formula; backprop is softmax - labels") {
  for (DType dt : {kFloat32, kFloat64}) {
    INFO("dtype " << DTypeName(dt));
    const Tensor labels =
        MakeTensor(dt, {3, 4}, {0.1, 0.2, 0.3, 0.4, 0, 1, 0, 0, 0.25, 0.25, 0.25, 0.25});
    testing::ExpectTensor(softmax_cross_entropy_with_logits(labels, Logits(dt)), dt, {3},
                          {2.0811637, 3.82834129, 2.54377041}, 1e-6);
    const OutputList out = RunBoth("SoftmaxCrossEntropyWithLogits", Logits(dt), labels);
    testing::ExpectTensor(
        out[1], dt, {3, 4},
        {-0.094652701, -0.0229217752, -0.276035068, 0.393609544, 0.160679868, -0.978254345,
         0.72011721, 0.0974572665, -0.224492185, 0.594702818, -0.135681905, -0.234528728},
        1e-6);
  }
}

TEST_CASE("SparseSoftmaxCrossEntropyWithLogits matches the formula for int32 and int64 labels") {
  for (DType dt : {kFloat32, kFloat64}) {
    for (const Tensor& labels : {constant({3, 0, 2}), constant<int64_t>({3, 0, 2})}) {
      INFO("dtype " << DTypeName(dt) << ", labels " << DTypeName(labels.dtype()));
      testing::ExpectTensor(sparse_softmax_cross_entropy_with_logits(labels, Logits(dt)), dt, {3},
                            {0.231163696, 1.82834129, 2.16877041}, 1e-6);
      const OutputList out = RunBoth("SparseSoftmaxCrossEntropyWithLogits", Logits(dt), labels);
      testing::ExpectTensor(
          out[1], dt, {3, 4},
          {0.00534729905, 0.177078225, 0.0239649317, -0.206390456, -0.839320132, 0.0217456555,
           0.72011721, 0.0974572665, 0.0255078149, 0.844702818, -0.885681905, 0.0154712718},
          1e-6);
    }
  }
}

TEST_CASE("cross-entropy stays finite for huge logits") {
  for (DType dt : {kFloat32, kFloat64}) {
    const Tensor logits = MakeTensor(dt, {1, 3}, {1000, 0, -1000});
    testing::ExpectTensor(sparse_softmax_cross_entropy_with_logits(constant({1}), logits), dt, {1},
                          {1000}, 1e-6);
    testing::ExpectTensor(
        softmax_cross_entropy_with_logits(MakeTensor(dt, {1, 3}, {0, 0, 1}), logits), dt, {1},
        {2000}, 1e-6);
  }
}

// Issue 37: the loss is taken of the shifted logits (Note [Cross-entropy of shifted logits] in
// kernels/cpu/nn/cross_entropy_kernels.cc); lse(logits) - logits cancelled to 0 at 1e30. Values
// from tf.raw_ops.SoftmaxCrossEntropyWithLogits.
TEST_CASE("cross-entropy keeps the loss of huge equal logits, as TensorFlow") {
  for (DType dt : {kFloat32, kFloat64}) {
    INFO("dtype " << DTypeName(dt));
    const Tensor logits = MakeTensor(dt, {1, 3}, {1e30, 1e30, -1e30});
    const OutputList out =
        RunBoth("SoftmaxCrossEntropyWithLogits", logits, MakeTensor(dt, {1, 3}, {1, 0, 0}));
    testing::ExpectTensor(out[0], dt, {1}, {0.693147181}, 1e-6);
    testing::ExpectTensor(out[1], dt, {1, 3}, {-0.5, 0.5, 0}, 1e-6);
    testing::ExpectTensor(sparse_softmax_cross_entropy_with_logits(constant({0}), logits), dt, {1},
                          {0.693147181}, 1e-6);
  }
}

// Issue 37: labels and logits broadcast against each other to 2-D, as in TensorFlow (values from
// tf.raw_ops.SoftmaxCrossEntropyWithLogits).
TEST_CASE("cross-entropy broadcasts labels and logits against each other") {
  for (DType dt : {kFloat32, kFloat64}) {
    INFO("dtype " << DTypeName(dt));
    const Tensor logits = MakeTensor(dt, {2, 3}, {1, 2, 3, 3, 2, 1});
    OutputList out =
        RunBoth("SoftmaxCrossEntropyWithLogits", logits, MakeTensor(dt, {1, 3}, {1, 0, 0}));
    testing::ExpectTensor(out[0], dt, {2}, {2.407606, 0.40760595}, 1e-6);
    testing::ExpectTensor(
        out[1], dt, {2, 3},
        {-0.90996945, 0.24472848, 0.66524094, -0.33475906, 0.24472848, 0.09003057}, 1e-6);
    out = RunBoth("SoftmaxCrossEntropyWithLogits", MakeTensor(dt, {1, 3}, {1, 2, 3}),
                  MakeTensor(dt, {2, 3}, {1, 0, 0, 0, 1, 0}));
    testing::ExpectTensor(out[0], dt, {2}, {2.407606, 1.4076059}, 1e-6);
    out = RunBoth("SoftmaxCrossEntropyWithLogits", MakeTensor(dt, {1, 3}, {1, 2, 3}),
                  MakeTensor(dt, {2, 1}, {1, 0.5}));
    testing::ExpectTensor(out[0], dt, {2}, {4.222818, 2.111409}, 1e-6);
    testing::ExpectTensor(
        out[1], dt, {2, 3},
        {-0.90996945, -0.75527155, -0.33475906, -0.40996942, -0.25527152, 0.16524094}, 1e-6);
    // A 1-D label row broadcasts too.
    testing::ExpectTensor(softmax_cross_entropy_with_logits(MakeTensor(dt, {3}, {1, 0, 0}), logits),
                          dt, {2}, {2.407606, 0.40760595}, 1e-6);
  }
}

TEST_CASE("out-of-range sparse labels are an error naming the label") {
  testing::ExpectError(
      [&] {
        sparse_softmax_cross_entropy_with_logits(constant({3, 4, 2}), Logits(kFloat32));
      },
      {"SparseSoftmaxCrossEntropyWithLogits",
       "label 4 (at index 1) is outside the valid range [0, 4)", "cross_entropy_test.cc"});
  testing::ExpectError(
      [&] {
        sparse_softmax_cross_entropy_with_logits(constant<int64_t>({0, -1, 2}), Logits(kFloat64));
      },
      {"label -1 (at index 1)"});
}

TEST_CASE("cross-entropy reports bad shapes and dtypes") {
  testing::ExpectError(
      [&] {
        softmax_cross_entropy_with_logits(MakeTensor(kFloat32, {1, 3}, {1, 2, 3}),
                                          Logits(kFloat32));
      },
      {"SoftmaxCrossEntropyWithLogits", "logits (3, 4) and labels (1, 3) do not broadcast",
       "cross_entropy_test.cc"});
  testing::ExpectError(
      [&] {
        softmax_cross_entropy_with_logits(MakeTensor(kFloat32, {2, 1, 4}, {1, 2, 3, 4, 5, 6, 7, 8}),
                                          Logits(kFloat32));
      },
      {"SoftmaxCrossEntropyWithLogits", "must be 2-D (batch, classes) or broadcast to 2-D"});
  testing::ExpectError(
      [&] {
        sparse_softmax_cross_entropy_with_logits(constant({1, 2}), Logits(kFloat32));
      },
      {"labels has 2 entries but logits has batch size 3"});
  testing::ExpectError(
      [&] {
        sparse_softmax_cross_entropy_with_logits(constant({1}), MakeTensor(kFloat32, {2}, {1, 2}));
      },
      {"logits must be 2-D (batch, classes)", "(2,)"});
  testing::ExpectError(
      [&] {
        sparse_softmax_cross_entropy_with_logits(MakeTensor(kFloat32, {3}, {1, 2, 3}),
                                                 Logits(kFloat32));
      },
      {"SparseSoftmaxCrossEntropyWithLogits", "Tlabels", "float32 is not supported"});
}

}  // namespace
}  // namespace duet
