// L2Loss: sum(t^2) / 2 over every element, a scalar (TensorFlow's weight-decay term).
#include "ops/common_shape_fns.h"
#include "ops/op_call.h"
#include "ops/reduction/reduction_ops.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

absl::Status ScalarShape(ShapeContext& ctx) {
  static const Shape kScalar;
  ctx.set_output(0, ctx.output(0).dtype, kScalar);
  return absl::OkStatus();
}

const OpDef* const kL2Loss = OpDefBuilder("L2Loss")
                                 .Input("t", "T")
                                 .Output("output", "T")
                                 .TypeAttr("T", {kFloat16, kBFloat16, kFloat32, kFloat64})
                                 .Doc("sum(t ** 2) / 2 over every element (a scalar).")
                                 .SetShapeFn(ScalarShape)
                                 .Register();

}  // namespace

Tensor l2_loss(const Tensor& t, OpSite site) {
  OpCall call(kL2Loss, {t}, site);
  return RunSingleOutputOp(call);
}

}  // namespace duet
