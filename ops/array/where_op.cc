// Where: the coordinates of the true (non-zero) elements of its input (Note in where_op.h).
#include "ops/array/where_op.h"

#include "ops/array/shape_fn_util.h"
#include "ops/op_call.h"

namespace duet {
namespace {

absl::Status WhereShape(ShapeContext& ctx) {
  const Shape& input = ctx.input_shape(0);
  ctx.set_output(
      0, kInt64,
      input.unknown_rank() ? Shape::Unknown(2) : Shape{Shape::kUnknownDim, input.rank()});
  return absl::OkStatus();
}

const OpDef* const kWhere = OpDefBuilder("Where")
                                .Input("input", "T")
                                .Output("index", kInt64)
                                .TypeAttr("T", kAllDTypes, kBool)
                                .Doc("The coordinates of the true (non-zero) elements of input.")
                                .SetShapeFn(WhereShape)
                                .Register();

}  // namespace

Tensor where_indices(const Tensor& condition, OpSite site) {
  OpCall call(kWhere, {condition}, site);
  return RunSingleOutputOp(call);
}

Tensor where(const Tensor& condition, OpSite site) { return where_indices(condition, site); }

}  // namespace duet
