// Gradients of the control-flow ops (If and While: graph/control_flow_grads.cc).
#include "core/error.h"
#include "ops/control_flow/control_flow_attrs.h"
#include "ops/function_body.h"
#include "ops/gradient.h"
#include "ops/op_call.h"

namespace duet {
namespace {

const NotDifferentiable kNoOp("NoOp");  // no inputs to differentiate
// A host callable is opaque to autodiff (as TensorFlow's py_func): no gradient flows through it.
const NotDifferentiable kHostFunction("DuetHostFunction");

// custom_gradient's node: no gradient for the value (the user's backward replaces the gradient
// of the ops that computed it); the backward function's for the inputs.
TensorList CustomGradientGrad(const GradientContext& ctx) {
  const FuncAttr& backward = ctx.attr(CustomGradientAttrs::kGrad);
  absl::StatusOr<std::vector<Tensor>> grads = backward.body->Call({ctx.grad_or_zeros(0)});
  if (!grads.ok()) throw Error(grads.status());
  TensorList result = {Tensor()};
  result.insert(result.end(), grads->begin(), grads->end());
  return result;
}
const GradientRegistrar kCustomGradientGrad("DuetCustomGradient", CustomGradientGrad);

}  // namespace
}  // namespace duet
