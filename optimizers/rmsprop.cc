#include "optimizers/rmsprop.h"

#include "core/constant.h"
#include "ops/state/training_ops.h"

namespace duet::optimizers {

RMSProp::RMSProp(LearningRate learning_rate, RMSPropOptions options)
    : Optimizer("RMSProp", std::move(learning_rate), options.clip), options_(options) {}

std::vector<std::string> RMSProp::slot_names() const {
  if (options_.centered) return {"rms", "momentum", "mg"};
  return {"rms", "momentum"};
}

void RMSProp::update(const Update& u) {
  const DType dtype = u.variable.dtype();
  const Tensor rho = scalar(options_.rho, dtype), momentum = scalar(options_.momentum, dtype);
  const Tensor epsilon = scalar(options_.epsilon, dtype);
  if (options_.centered) {
    resource_apply_centered_rms_prop(u.variable.handle(), u.slots[2].handle(), u.slots[0].handle(),
                                     u.slots[1].handle(), u.learning_rate, rho, momentum, epsilon,
                                     u.grad, u.site);
  } else {
    resource_apply_rms_prop(u.variable.handle(), u.slots[0].handle(), u.slots[1].handle(),
                            u.learning_rate, rho, momentum, epsilon, u.grad, u.site);
  }
}

}  // namespace duet::optimizers
