// TensorFlow's fused optimizer updates (its training_ops): each updates a variable and its slot
// variables in one pass, with TensorFlow's op names, inputs and formulas, so optimizers run the
// same ops eagerly, traced and in exported GraphDefs.
//
// Common rules. `var` and the slots (`accum`, `m`, `v`, `vhat`, `ms`, `mom`, `mg`) are kResource
// handles (Variable::handle()) of distinct variables that hold values of one float dtype T
// (float32 or float64) and one shape; `grad` has that dtype and shape; every other tensor is a
// rank-0 hyper-parameter of dtype T. A violation throws Error naming the op, the variable and both
// shapes; so does a slot that was never assigned. The updates write in place when a variable is
// its value's only holder and into a fresh value otherwise, so a tensor read before the update
// keeps its value (Note [Variables copy on write] in kernels/cpu/state/variable_kernels.cc). They
// have no outputs and no gradient.
#pragma once

#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet {

// ResourceApplyKerasMomentum (Keras' SGD with momentum):
//   accum = accum * momentum - lr * grad; var += accum
//   use_nesterov: accum as above, then var += accum * momentum - lr * grad.
void resource_apply_keras_momentum(const Tensor& var, const Tensor& accum, const Tensor& lr,
                                   const Tensor& grad, const Tensor& momentum,
                                   bool use_nesterov = false, OpSite site = {});

// ResourceApplyAdam:
//   lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
//   m += (grad - m) * (1 - beta1); v += (grad^2 - v) * (1 - beta2)
//   var -= lr_t * m / (sqrt(v) + epsilon)
//   use_nesterov: var -= lr_t * (grad * (1 - beta1) + beta1 * m) / (sqrt(v) + epsilon).
// beta1_power and beta2_power are beta1^t and beta2^t for the 1-based step t.
void resource_apply_adam(const Tensor& var, const Tensor& m, const Tensor& v,
                         const Tensor& beta1_power, const Tensor& beta2_power, const Tensor& lr,
                         const Tensor& beta1, const Tensor& beta2, const Tensor& epsilon,
                         const Tensor& grad, bool use_nesterov = false, OpSite site = {});

// ResourceApplyAdamWithAmsgrad: Adam's m and v, then vhat = max(vhat, v) and
//   var -= lr_t * m / (sqrt(vhat) + epsilon).
void resource_apply_adam_with_amsgrad(const Tensor& var, const Tensor& m, const Tensor& v,
                                      const Tensor& vhat, const Tensor& beta1_power,
                                      const Tensor& beta2_power, const Tensor& lr,
                                      const Tensor& beta1, const Tensor& beta2,
                                      const Tensor& epsilon, const Tensor& grad, OpSite site = {});

// ResourceApplyRMSProp (epsilon inside the square root):
//   ms += (grad^2 - ms) * (1 - rho); mom = mom * momentum + lr * grad / sqrt(ms + epsilon)
//   var -= mom.
void resource_apply_rms_prop(const Tensor& var, const Tensor& ms, const Tensor& mom,
                             const Tensor& lr, const Tensor& rho, const Tensor& momentum,
                             const Tensor& epsilon, const Tensor& grad, OpSite site = {});

// ResourceApplyCenteredRMSProp: RMSProp that also tracks the mean gradient mg:
//   ms += (grad^2 - ms) * (1 - rho); mg += (grad - mg) * (1 - rho)
//   mom = mom * momentum + lr * grad / sqrt(ms - mg^2 + epsilon); var -= mom.
void resource_apply_centered_rms_prop(const Tensor& var, const Tensor& mg, const Tensor& ms,
                                      const Tensor& mom, const Tensor& lr, const Tensor& rho,
                                      const Tensor& momentum, const Tensor& epsilon,
                                      const Tensor& grad, OpSite site = {});

// ResourceApplyAdagradV2 (epsilon outside the square root):
//   accum += grad^2 (skipped when !update_slots); var -= lr * grad / (sqrt(accum) + epsilon).
void resource_apply_adagrad_v2(const Tensor& var, const Tensor& accum, const Tensor& lr,
                               const Tensor& epsilon, const Tensor& grad, bool update_slots = true,
                               OpSite site = {});

}  // namespace duet
