// SoftmaxCrossEntropyWithLogits and SparseSoftmaxCrossEntropyWithLogits: per-example softmax
// cross-entropy losses, with the gradient wrt the logits (softmax - labels) as second output.
#include "absl/strings/str_cat.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

const std::vector<DType> kCrossEntropyTypes = {kFloat32, kFloat64};

absl::Status CheckLogits2D(const Shape& features) {
  if (features.unknown_rank() || features.rank() == 2) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("logits must be 2-D (batch, classes), got shape ", features.str()));
}

void SetLossShapes(ShapeContext& ctx, const Shape& features) {
  const int64_t batch = features.unknown_rank() ? -1 : features[0];
  const int64_t classes = features.unknown_rank() ? -1 : features[1];
  ctx.set_output(0, ctx.output(0).dtype, Shape{batch});
  ctx.set_output(1, ctx.output(1).dtype, Shape{batch, classes});
}

// Logits and labels broadcast against each other (NumPy rules, as TensorFlow's BCast) to the
// 2-D [batch, classes] of backprop; loss is [batch].
absl::Status CrossEntropyShape(ShapeContext& ctx) {
  const Shape& features = ctx.input_shape(0);
  const Shape& labels = ctx.input_shape(1);
  absl::StatusOr<Shape> shape = BroadcastShapes(features, labels);
  if (!shape.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("logits ", features.str(), " and labels ",
                                                   labels.str(), " do not broadcast together"));
  }
  if (shape->unknown_rank()) shape = Shape::Unknown(2);
  if (shape->rank() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("logits and labels must be 2-D (batch, classes) or broadcast to 2-D, got "
                     "logits ",
                     features.str(), " and labels ", labels.str()));
  }
  SetLossShapes(ctx, *shape);
  return absl::OkStatus();
}

absl::Status SparseCrossEntropyShape(ShapeContext& ctx) {
  const Shape& features = ctx.input_shape(0);
  const Shape& labels = ctx.input_shape(1);
  DUET_RETURN_IF_ERROR(CheckLogits2D(features));
  if (!labels.unknown_rank() && labels.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("labels must be 1-D (batch), got shape ", labels.str()));
  }
  if (!labels.unknown_rank() && !features.unknown_rank() && labels[0] >= 0 && features[0] >= 0 &&
      labels[0] != features[0]) {
    return absl::InvalidArgumentError(
        absl::StrCat("labels has ", labels[0], " entries but logits has batch size ", features[0],
                     " (shapes ", labels.str(), " and ", features.str(), ")"));
  }
  SetLossShapes(ctx, features);
  return absl::OkStatus();
}

const OpDef* const kSoftmaxCrossEntropy =
    OpDefBuilder("SoftmaxCrossEntropyWithLogits")
        .Input("features", "T")
        .Input("labels", "T")
        .Output("loss", "T")
        .Output("backprop", "T")
        .TypeAttr("T", kCrossEntropyTypes)
        .Doc(
            "Per-row softmax cross-entropy of logits with label distributions; the two broadcast "
            "(NumPy rules) to a 2-D (batch, classes) shape.")
        .TfDifference(
            "The gradient wrt the logits is softmax * sum(labels) - labels, exact also "
            "for label rows that do not sum to 1; TensorFlow's reuses backprop = "
            "softmax - labels.")
        .SetShapeFn(CrossEntropyShape)
        .Register();

const OpDef* const kSparseSoftmaxCrossEntropy =
    OpDefBuilder("SparseSoftmaxCrossEntropyWithLogits")
        .Input("features", "T")
        .Input("labels", "Tlabels")
        .Output("loss", "T")
        .Output("backprop", "T")
        .TypeAttr(SparseCrossEntropyAttrs::kT, kCrossEntropyTypes)
        .TypeAttr(SparseCrossEntropyAttrs::kTlabels, kIndexTypes, kInt64)
        .Doc("Per-row softmax cross-entropy of 2-D logits with class-index labels.")
        .SetShapeFn(SparseCrossEntropyShape)
        .Register();

}  // namespace

Tensor softmax_cross_entropy_with_logits(const Tensor& labels, const Tensor& logits, OpSite site) {
  OpCall call(kSoftmaxCrossEntropy, {logits, labels}, site);
  return RunOp(call)[0];
}

Tensor sparse_softmax_cross_entropy_with_logits(const Tensor& labels, const Tensor& logits,
                                                OpSite site) {
  OpCall call(kSparseSoftmaxCrossEntropy, {logits, labels}, site);
  return RunOp(call)[0];
}

}  // namespace duet
