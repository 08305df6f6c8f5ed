// ClipByValue: t limited to [clip_value_min, clip_value_max], each bound a scalar or a tensor of
// t's shape (TensorFlow's rule: no other broadcasting).
#include "absl/strings/str_cat.h"
#include "ops/math/elementwise_op_def.h"
#include "ops/math/math_ops.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

absl::Status ClipByValueShape(ShapeContext& ctx) {
  const Shape& t = ctx.input_shape(0);
  for (int i : {1, 2}) {
    const Shape& bound = ctx.input_shape(i);
    if (bound.unknown_rank() || bound.rank() == 0 || bound.IsCompatibleWith(t)) continue;
    return absl::InvalidArgumentError(absl::StrCat(i == 1 ? "clip_value_min" : "clip_value_max",
                                                   " must be a scalar or have t's shape ", t.str(),
                                                   ", got shape ", bound.str()));
  }
  ctx.set_output(0, ctx.output(0).dtype, t);
  return absl::OkStatus();
}

const OpDef* const kClipByValue =
    OpDefBuilder("ClipByValue")
        .Input("t", "T")
        .Input("clip_value_min", "T")
        .Input("clip_value_max", "T")
        .Output("output", "T")
        .TypeAttr("T", kArithmeticTypes)
        .Doc(
            "t limited to [clip_value_min, clip_value_max] elementwise; the bounds are scalars "
            "or of t's shape.")
        .SetShapeFn(ClipByValueShape)
        .Register();

}  // namespace

Tensor clip_by_value(const Tensor& t, const Tensor& clip_value_min, const Tensor& clip_value_max,
                     OpSite site) {
  OpCall call(kClipByValue, {t, clip_value_min, clip_value_max}, site);
  return RunSingleOutputOp(call);
}

}  // namespace duet
