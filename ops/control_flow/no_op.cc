// NoOp: no inputs but control inputs, no outputs.
#include "ops/control_flow/control_flow_ops.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

const OpDef* const kNoOp = OpDefBuilder("NoOp")
                               .Doc("Does nothing; orders other nodes through control inputs.")
                               .SetShapeFn([](ShapeContext&) { return absl::OkStatus(); })
                               .Register();

}  // namespace

void no_op(OpSite site) {
  OpCall call(kNoOp, {}, site);
  RunOp(call);
}

}  // namespace duet
