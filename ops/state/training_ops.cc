// TensorFlow's fused optimizer updates: ResourceApplyKerasMomentum, ResourceApplyAdam,
// ResourceApplyAdamWithAmsgrad, ResourceApplyRMSProp, ResourceApplyCenteredRMSProp and
// ResourceApplyAdagradV2, with TensorFlow's inputs and attrs. use_locking is accepted for
// GraphDef compatibility; duet always holds the variables' locks during an update.
#include "ops/state/training_ops.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "core/resource.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"
#include "ops/state/state_attrs.h"

namespace duet {
namespace {

const std::vector<DType> kUpdateTypes = {kFloat32, kFloat64};

bool IsVariableInput(const ArgDef& arg) {
  return arg.type_attr.empty() && arg.fixed_type == kResource;
}

// The variable behind input i when its handle is known (always in eager mode).
const VariableResource* KnownVariable(const ShapeContext& ctx, int i) {
  const Tensor* handle = ctx.input_value(i);
  return handle == nullptr ? nullptr : VariableOf(*handle);
}

// One shape function for every update, read off the op's signature: resource inputs are the
// variable (first) and its slots, `grad` matches the variable, every other input is a scalar
// hyper-parameter. Variables are checked when their handles are known (eager mode); the kernels
// check the values again, since a graph learns them only when it runs.
absl::Status ApplyUpdateShape(ShapeContext& ctx) {
  const std::vector<ArgDef>& inputs = ctx.op().inputs;
  const VariableResource* var = KnownVariable(ctx, 0);
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    const ArgDef& arg = inputs[i];
    const Shape& shape = ctx.input_shape(i);
    if (IsVariableInput(arg)) {
      const VariableResource* slot = KnownVariable(ctx, i);
      if (var == nullptr || slot == nullptr) continue;
      if (slot == var) {
        return absl::InvalidArgumentError(
            absl::StrCat("var and ", arg.name, " are the same variable '", var->name, "'"));
      }
      DUET_RETURN_IF_ERROR(CheckMatchesVariable(
          *var, var->shape, absl::StrCat("slot ", arg.name, " (variable '", slot->name, "')"),
          slot->dtype, slot->shape));
    } else if (arg.name == "grad") {
      if (var != nullptr) {
        DUET_RETURN_IF_ERROR(
            CheckMatchesVariable(*var, var->shape, "grad", ctx.input_dtype(i), shape));
      }
    } else if (shape.rank() > 0) {  // unknown rank passes: the kernel checks the value
      return absl::InvalidArgumentError(
          absl::StrCat(arg.name, " must be a scalar, got shape ", shape.str()));
    }
  }
  return absl::OkStatus();
}

// The attrs every update starts with (TensorFlow's order: T, use_locking, then the op's own).
OpDefBuilder& WithUpdateAttrs(OpDefBuilder& b) {
  return b.TypeAttr(ApplyUpdateAttrs::kT, kUpdateTypes)
      .BoolAttr(ApplyUpdateAttrs::kUseLocking, false);
}

// An update op over `variables` (var first, then its slots) and `values` (hyper-parameters and
// grad, in TensorFlow's order).
OpDefBuilder UpdateOp(const char* name, std::initializer_list<const char*> variables,
                      std::initializer_list<const char*> values, const char* doc) {
  OpDefBuilder b(name);
  for (const char* v : variables) b.Input(v, kResource);
  for (const char* v : values) b.Input(v, "T");
  WithUpdateAttrs(b).Stateful().KeepsNoInputs().Doc(doc).SetShapeFn(ApplyUpdateShape);
  return b;
}

const OpDef* const kResourceApplyKerasMomentum =
    UpdateOp("ResourceApplyKerasMomentum", {"var", "accum"}, {"lr", "grad", "momentum"},
             "accum = accum * momentum - lr * grad; var += accum (use_nesterov: var += accum * "
             "momentum - lr * grad), in one pass.")
        .BoolAttr(ApplyNesterovAttrs::kUseNesterov, false)
        .Register();

const OpDef* const kResourceApplyAdam =
    UpdateOp("ResourceApplyAdam", {"var", "m", "v"},
             {"beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"},
             "The Adam update of var and its moments m and v, in one pass (use_nesterov: "
             "Nesterov momentum).")
        .BoolAttr(ApplyNesterovAttrs::kUseNesterov, false)
        .Register();

const OpDef* const kResourceApplyAdamWithAmsgrad =
    UpdateOp("ResourceApplyAdamWithAmsgrad", {"var", "m", "v", "vhat"},
             {"beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"},
             "The AMSGrad variant of Adam: vhat = max(vhat, v) scales the step.")
        .Register();

const OpDef* const kResourceApplyRMSProp =
    UpdateOp("ResourceApplyRMSProp", {"var", "ms", "mom"},
             {"lr", "rho", "momentum", "epsilon", "grad"},
             "The RMSProp update of var, ms and mom: mom = mom * momentum + lr * grad / "
             "sqrt(ms + epsilon); var -= mom.")
        .Register();

const OpDef* const kResourceApplyCenteredRMSProp =
    UpdateOp("ResourceApplyCenteredRMSProp", {"var", "mg", "ms", "mom"},
             {"lr", "rho", "momentum", "epsilon", "grad"},
             "Centered RMSProp: RMSProp normalized by the gradient's variance estimate ms - mg^2.")
        .Register();

const OpDef* const kResourceApplyAdagradV2 =
    UpdateOp("ResourceApplyAdagradV2", {"var", "accum"}, {"lr", "epsilon", "grad"},
             "accum += grad^2 (when update_slots); var -= lr * grad / (sqrt(accum) + epsilon).")
        .BoolAttr(ApplyAdagradV2Attrs::kUpdateSlots, true)
        .Register();

}  // namespace

void resource_apply_keras_momentum(const Tensor& var, const Tensor& accum, const Tensor& lr,
                                   const Tensor& grad, const Tensor& momentum, bool use_nesterov,
                                   OpSite site) {
  OpCall call(kResourceApplyKerasMomentum, {var, accum, lr, grad, momentum}, site);
  call.set(ApplyNesterovAttrs::kUseNesterov, use_nesterov);
  RunOp(call);
}

void resource_apply_adam(const Tensor& var, const Tensor& m, const Tensor& v,
                         const Tensor& beta1_power, const Tensor& beta2_power, const Tensor& lr,
                         const Tensor& beta1, const Tensor& beta2, const Tensor& epsilon,
                         const Tensor& grad, bool use_nesterov, OpSite site) {
  OpCall call(kResourceApplyAdam,
              {var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad}, site);
  call.set(ApplyNesterovAttrs::kUseNesterov, use_nesterov);
  RunOp(call);
}

void resource_apply_adam_with_amsgrad(const Tensor& var, const Tensor& m, const Tensor& v,
                                      const Tensor& vhat, const Tensor& beta1_power,
                                      const Tensor& beta2_power, const Tensor& lr,
                                      const Tensor& beta1, const Tensor& beta2,
                                      const Tensor& epsilon, const Tensor& grad, OpSite site) {
  OpCall call(kResourceApplyAdamWithAmsgrad,
              {var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad}, site);
  RunOp(call);
}

void resource_apply_rms_prop(const Tensor& var, const Tensor& ms, const Tensor& mom,
                             const Tensor& lr, const Tensor& rho, const Tensor& momentum,
                             const Tensor& epsilon, const Tensor& grad, OpSite site) {
  OpCall call(kResourceApplyRMSProp, {var, ms, mom, lr, rho, momentum, epsilon, grad}, site);
  RunOp(call);
}

void resource_apply_centered_rms_prop(const Tensor& var, const Tensor& mg, const Tensor& ms,
                                      const Tensor& mom, const Tensor& lr, const Tensor& rho,
                                      const Tensor& momentum, const Tensor& epsilon,
                                      const Tensor& grad, OpSite site) {
  OpCall call(kResourceApplyCenteredRMSProp, {var, mg, ms, mom, lr, rho, momentum, epsilon, grad},
              site);
  RunOp(call);
}

void resource_apply_adagrad_v2(const Tensor& var, const Tensor& accum, const Tensor& lr,
                               const Tensor& epsilon, const Tensor& grad, bool update_slots,
                               OpSite site) {
  OpCall call(kResourceApplyAdagradV2, {var, accum, lr, epsilon, grad}, site);
  call.set(ApplyAdagradV2Attrs::kUpdateSlots, update_slots);
  RunOp(call);
}

}  // namespace duet
