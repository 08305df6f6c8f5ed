#include "optimizers/adam.h"

#include "core/constant.h"
#include "ops/math/math_ops.h"
#include "ops/math/operators.h"
#include "ops/state/training_ops.h"

namespace duet::optimizers {

Adam::Adam(LearningRate learning_rate, AdamOptions options)
    : Adam("Adam", std::move(learning_rate), options) {}

Adam::Adam(std::string name, LearningRate learning_rate, AdamOptions options)
    : Optimizer(std::move(name), std::move(learning_rate), options.clip), options_(options) {}

std::vector<std::string> Adam::slot_names() const {
  if (options_.amsgrad) return {"m", "v", "vhat"};
  return {"m", "v"};
}

void Adam::update(const Update& u) {
  const DType dtype = u.variable.dtype();
  const Tensor beta_1 = scalar(options_.beta_1, dtype), beta_2 = scalar(options_.beta_2, dtype);
  // Keras raises float32 betas to the step (in the variable's dtype); the moment updates use the
  // exact ones.
  const Tensor beta_1_power = pow(Float32Scalar(options_.beta_1, dtype), u.step, u.site);
  const Tensor beta_2_power = pow(Float32Scalar(options_.beta_2, dtype), u.step, u.site);
  const Tensor epsilon = scalar(options_.epsilon, dtype);
  if (options_.amsgrad) {
    resource_apply_adam_with_amsgrad(u.variable.handle(), u.slots[0].handle(), u.slots[1].handle(),
                                     u.slots[2].handle(), beta_1_power, beta_2_power,
                                     u.learning_rate, beta_1, beta_2, epsilon, u.grad, u.site);
  } else {
    resource_apply_adam(u.variable.handle(), u.slots[0].handle(), u.slots[1].handle(), beta_1_power,
                        beta_2_power, u.learning_rate, beta_1, beta_2, epsilon, u.grad,
                        /*use_nesterov=*/false, u.site);
  }
}

AdamW::AdamW(LearningRate learning_rate, double weight_decay, AdamOptions options)
    : Adam("AdamW", std::move(learning_rate), options), weight_decay_(weight_decay) {}

void AdamW::before_updates(const std::vector<std::pair<Tensor, Variable>>& pairs,
                           const std::function<Tensor(DType)>& learning_rate, OpSite site) {
  for (const auto& [grad, variable] : pairs) {
    // Keras' order of operations: variable - variable * wd * lr.
    const Tensor value = variable.value(site);
    variable.assign(value - value * Float32Scalar(weight_decay_, variable.dtype()) *
                                learning_rate(variable.dtype()),
                    site);
  }
}

}  // namespace duet::optimizers
