// optimizers::RMSProp: ms = rho * ms + (1 - rho) * g^2, mom = momentum * mom +
// lr * g / sqrt(ms + epsilon), var -= mom (ResourceApplyRMSProp); centered subtracts the square
// of a running mean of g inside the sqrt (ResourceApplyCenteredRMSProp).
#pragma once

#include "optimizers/optimizer.h"

namespace duet::optimizers {

struct RMSPropOptions {
  double rho = 0.9;
  double momentum = 0;
  double epsilon = 1e-7;
  bool centered = false;
  ClipOptions clip;
};

class RMSProp : public Optimizer {
 public:
  explicit RMSProp(LearningRate learning_rate = 0.001, RMSPropOptions options = {});

  std::vector<std::string> slot_names() const override;

 protected:
  void update(const Update& u) override;

 private:
  RMSPropOptions options_;
};

}  // namespace duet::optimizers
