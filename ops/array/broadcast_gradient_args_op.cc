// BroadcastGradientArgs (TensorFlow's): for two shapes that broadcast together, the axes of the
// broadcast result each operand was broadcast along, which its gradient is summed over. Graph
// gradients use it when shapes are only known at run time.
#include "absl/strings/str_cat.h"
#include "ops/array/array_ops.h"
#include "ops/array/shape_fn_util.h"
#include "ops/op_call.h"

namespace duet {
namespace {

absl::Status BroadcastGradientArgsShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckVectorInput(ctx, 0, "s0"));
  DUET_RETURN_IF_ERROR(CheckVectorInput(ctx, 1, "s1"));
  const DType dtype = ctx.output(0).dtype;
  const auto s0 = ctx.input_ints(0), s1 = ctx.input_ints(1);
  if (!s0 || !s1) {
    const Shape unknown_length({Shape::kUnknownDim});
    ctx.set_output(0, dtype, unknown_length);
    ctx.set_output(1, dtype, unknown_length);
    return absl::OkStatus();
  }
  DUET_ASSIGN_OR_RETURN(const BroadcastReduction r, BroadcastGradientAxes(*s0, *s1));
  ctx.set_output(0, dtype, Shape({static_cast<int64_t>(r.axes0.size())}));
  ctx.set_output(1, dtype, Shape({static_cast<int64_t>(r.axes1.size())}));
  return absl::OkStatus();
}

const OpDef* const kBroadcastGradientArgs =
    OpDefBuilder("BroadcastGradientArgs")
        .Input("s0", "T")
        .Input("s1", "T")
        .Output("r0", "T")
        .Output("r1", "T")
        .TypeAttr("T", {kInt32, kInt64}, kInt32)
        .RunsOnHost()
        .Doc("The axes along which shapes s0 and s1 were broadcast against each other.")
        .SetShapeFn(BroadcastGradientArgsShape)
        .Register();

}  // namespace

std::pair<Tensor, Tensor> broadcast_gradient_args(const Tensor& s0, const Tensor& s1, OpSite site) {
  OpCall call(kBroadcastGradientArgs, {s0, s1}, site);
  OutputList out = RunOp(call);
  return {out[0], out[1]};
}

}  // namespace duet
