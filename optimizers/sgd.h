// optimizers::SGD: plain gradient descent (ResourceApplyGradientDescent), or with momentum
// (ResourceApplyKerasMomentum: m = momentum * m - lr * g; var += m, or with Nesterov
// var += momentum * m - lr * g).
#pragma once

#include "optimizers/optimizer.h"

namespace duet::optimizers {

class SGD : public Optimizer {
 public:
  explicit SGD(LearningRate learning_rate = 0.01, double momentum = 0, bool nesterov = false,
               ClipOptions clip = {});

  std::vector<std::string> slot_names() const override;

 protected:
  void update(const Update& u) override;

 private:
  double momentum_;
  bool nesterov_;
};

}  // namespace duet::optimizers
