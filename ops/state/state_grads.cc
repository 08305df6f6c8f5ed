// Gradients of the variable ops: a read passes its gradient to the variable's handle, where the
// tape collects it as the variable's gradient; handles and assignments are not differentiable.
#include "ops/gradient.h"

namespace duet {
namespace {

TensorList ReadVariableGrad(const GradientContext& ctx) { return {ctx.grad(0)}; }

const GradientRegistrar kReadVariableGrad("ReadVariableOp", ReadVariableGrad);
const NotDifferentiable kVarHandleOp("VarHandleOp");
const NotDifferentiable kAssignVariableOp("AssignVariableOp");
const NotDifferentiable kAssignAddVariableOp("AssignAddVariableOp");
const NotDifferentiable kAssignSubVariableOp("AssignSubVariableOp");
const NotDifferentiable kResourceApplyGradientDescent("ResourceApplyGradientDescent");
// The fused optimizer updates (training_ops.h): like ResourceApplyGradientDescent, no outputs.
const NotDifferentiable kResourceApplyKerasMomentum("ResourceApplyKerasMomentum");
const NotDifferentiable kResourceApplyAdam("ResourceApplyAdam");
const NotDifferentiable kResourceApplyAdamWithAmsgrad("ResourceApplyAdamWithAmsgrad");
const NotDifferentiable kResourceApplyRMSProp("ResourceApplyRMSProp");
const NotDifferentiable kResourceApplyCenteredRMSProp("ResourceApplyCenteredRMSProp");
const NotDifferentiable kResourceApplyAdagradV2("ResourceApplyAdagradV2");

}  // namespace
}  // namespace duet
