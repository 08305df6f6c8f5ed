// SelectV2: condition ? t : e with three-way NumPy broadcasting (tf.where with x and y).
#include "absl/strings/str_cat.h"
#include "ops/math/math_ops.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

// The broadcast of all three input shapes; an error names every one of them.
absl::Status SelectV2Shape(ShapeContext& ctx) {
  absl::StatusOr<Shape> shape = BroadcastShapes(ctx.input_shape(1), ctx.input_shape(2));
  if (shape.ok()) shape = BroadcastShapes(ctx.input_shape(0), *shape);
  if (!shape.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "condition ", ctx.input_shape(0).str(), ", t ", ctx.input_shape(1).str(), " and e ",
        ctx.input_shape(2).str(), " have incompatible shapes: they do not broadcast together"));
  }
  ctx.set_output(0, ctx.output(0).dtype, *std::move(shape));
  return absl::OkStatus();
}

const OpDef* const kSelectV2 =
    OpDefBuilder("SelectV2")
        .Input("condition", kBool)
        .Input("t", "T")
        .Input("e", "T")
        .Output("output", "T")
        .TypeAttr("T", {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool})
        .Doc("condition ? t : e elementwise, all three broadcast together.")
        .SetShapeFn(SelectV2Shape)
        .Register();

}  // namespace

Tensor where(const Tensor& condition, const Tensor& x, const Tensor& y, OpSite site) {
  OpCall call(kSelectV2, {condition, x, y}, site);
  return RunSingleOutputOp(call);
}

}  // namespace duet
