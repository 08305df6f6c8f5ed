#include "ops/common_shape_fns.h"

namespace duet {

absl::Status UnchangedShape(ShapeContext& ctx) {
  ctx.set_output(0, ctx.output(0).dtype, ctx.input_shape(0));
  return absl::OkStatus();
}

absl::Status BroadcastBinaryShape(ShapeContext& ctx) {
  DUET_ASSIGN_OR_RETURN(Shape shape, BroadcastShapes(ctx.input_shape(0), ctx.input_shape(1)));
  ctx.set_output(0, ctx.output(0).dtype, std::move(shape));
  return absl::OkStatus();
}

}  // namespace duet
