// optimizers::Adam (ResourceApplyAdam, or ResourceApplyAdamWithAmsgrad) and AdamW (decoupled
// weight decay, var -= var * weight_decay * lr, before the Adam update, as Keras).
#pragma once

#include "optimizers/optimizer.h"

namespace duet::optimizers {

struct AdamOptions {
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-7;
  bool amsgrad = false;
  ClipOptions clip;
};

class Adam : public Optimizer {
 public:
  explicit Adam(LearningRate learning_rate = 0.001, AdamOptions options = {});

  std::vector<std::string> slot_names() const override;

 protected:
  Adam(std::string name, LearningRate learning_rate, AdamOptions options);
  void update(const Update& u) override;

 private:
  AdamOptions options_;
};

class AdamW : public Adam {
 public:
  explicit AdamW(LearningRate learning_rate = 0.001, double weight_decay = 0.004,
                 AdamOptions options = {});

 protected:
  void before_updates(const std::vector<std::pair<Tensor, Variable>>& pairs,
                      const std::function<Tensor(DType)>& learning_rate, OpSite site) override;

 private:
  double weight_decay_;
};

}  // namespace duet::optimizers
