// ReluGrad: Relu's backward op, TensorFlow's. One fused pass instead of a comparison, a bool
// tensor and a select (it is on every ReLU network's backward path).
#include "absl/strings/str_cat.h"
#include "ops/math/elementwise_op_def.h"
#include "ops/math/math_ops.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

// Both inputs describe the same tensor: equal shapes, unknown dims allowed (no broadcasting).
absl::Status SameShapes(ShapeContext& ctx) {
  const Shape& gradients = ctx.input_shape(0);
  const Shape& features = ctx.input_shape(1);
  if (!gradients.IsCompatibleWith(features)) {
    return absl::InvalidArgumentError(absl::StrCat("gradients ", gradients.str(), " and features ",
                                                   features.str(), " must have the same shape"));
  }
  ctx.set_output(0, ctx.output(0).dtype, gradients.is_fully_defined() ? gradients : features);
  return absl::OkStatus();
}

const OpDef* const kReluGrad =
    OpDefBuilder("ReluGrad")
        .Input("gradients", "T")
        .Input("features", "T")
        .Output("backprops", "T")
        .TypeAttr("T", kArithmeticTypes)
        .Doc(
            "gradients where features > 0, else 0: the gradient of Relu (features may be "
            "Relu's input or its output).")
        .SetShapeFn(SameShapes)
        .Register();

}  // namespace

Tensor relu_grad(const Tensor& gradients, const Tensor& features, OpSite site) {
  OpCall call(kReluGrad, {gradients, features}, site);
  return RunSingleOutputOp(call);
}

}  // namespace duet
