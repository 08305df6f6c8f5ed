// Gradients of the control-flow ops (If and While: graph/control_flow_grads.cc).
#include "ops/gradient.h"

namespace duet {
namespace {

const NotDifferentiable kNoOp("NoOp");  // no inputs to differentiate
// A host callable is opaque to autodiff (as TensorFlow's py_func): no gradient flows through it.
const NotDifferentiable kHostFunction("DuetHostFunction");

}  // namespace
}  // namespace duet
