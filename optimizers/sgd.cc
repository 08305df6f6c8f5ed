#include "optimizers/sgd.h"

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "ops/state/training_ops.h"
#include "ops/state/variable_ops.h"

namespace duet::optimizers {

SGD::SGD(LearningRate learning_rate, double momentum, bool nesterov, ClipOptions clip)
    : Optimizer("SGD", std::move(learning_rate), clip), momentum_(momentum), nesterov_(nesterov) {
  if (!(momentum >= 0 && momentum <= 1)) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("SGD: momentum must be in [0, 1], got ", momentum)));
  }
}

std::vector<std::string> SGD::slot_names() const {
  if (momentum_ == 0) return {};
  return {"momentum"};
}

void SGD::update(const Update& u) {
  if (momentum_ == 0) {
    resource_apply_gradient_descent(u.variable.handle(), u.learning_rate, u.grad, u.site);
    return;
  }
  resource_apply_keras_momentum(u.variable.handle(), u.slots[0].handle(), u.learning_rate, u.grad,
                                Float32Scalar(momentum_, u.variable.dtype()), nesterov_, u.site);
}

}  // namespace duet::optimizers
