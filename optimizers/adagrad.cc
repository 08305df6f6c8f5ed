#include "optimizers/adagrad.h"

#include "core/constant.h"
#include "ops/state/training_ops.h"

namespace duet::optimizers {

Adagrad::Adagrad(LearningRate learning_rate, AdagradOptions options)
    : Optimizer("Adagrad", std::move(learning_rate), options.clip), options_(options) {}

void Adagrad::update(const Update& u) {
  resource_apply_adagrad_v2(u.variable.handle(), u.slots[0].handle(), u.learning_rate,
                            scalar(options_.epsilon, u.variable.dtype()), u.grad,
                            /*update_slots=*/true, u.site);
}

}  // namespace duet::optimizers
