// Softmax and LogSoftmax over the last axis.
#include "absl/strings/str_cat.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

const std::vector<DType> kSoftmaxTypes = {kFloat32, kFloat64, kBFloat16};

absl::Status SoftmaxShape(ShapeContext& ctx) {
  const Shape& logits = ctx.input_shape(0);
  if (!logits.unknown_rank() && logits.rank() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("logits must be at least 1-D, got shape ", logits.str()));
  }
  ctx.set_output(0, ctx.output(0).dtype, logits);
  return absl::OkStatus();
}

const OpDef* const kSoftmax = OpDefBuilder("Softmax")
                                  .Input("logits", "T")
                                  .Output("softmax", "T")
                                  .TypeAttr("T", kSoftmaxTypes)
                                  .Doc("exp(logits) / sum(exp(logits)) over the last axis.")
                                  .SetShapeFn(SoftmaxShape)
                                  .Register();

const OpDef* const kLogSoftmax = OpDefBuilder("LogSoftmax")
                                     .Input("logits", "T")
                                     .Output("logsoftmax", "T")
                                     .TypeAttr("T", kSoftmaxTypes)
                                     .Doc("logits - log(sum(exp(logits))) over the last axis.")
                                     .SetShapeFn(SoftmaxShape)
                                     .Register();

}  // namespace

Tensor softmax(const Tensor& logits, OpSite site) {
  OpCall call(kSoftmax, {logits}, site);
  return RunSingleOutputOp(call);
}

Tensor log_softmax(const Tensor& logits, OpSite site) {
  OpCall call(kLogSoftmax, {logits}, site);
  return RunSingleOutputOp(call);
}

}  // namespace duet
