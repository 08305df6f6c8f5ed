// Gradients of the control-flow ops.
#include "ops/gradient.h"

namespace duet {
namespace {

const NotDifferentiable kNoOp("NoOp");  // no inputs to differentiate

}  // namespace
}  // namespace duet
