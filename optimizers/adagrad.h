// optimizers::Adagrad: accum += g^2; var -= lr * g / (sqrt(accum) + epsilon)
// (ResourceApplyAdagradV2, TensorFlow's and tf.keras 2's form; Keras 3 puts epsilon inside the
// square root, which differs by about epsilon / sqrt(accum) relative).
#pragma once

#include "optimizers/optimizer.h"

namespace duet::optimizers {

struct AdagradOptions {
  double initial_accumulator_value = 0.1;
  double epsilon = 1e-7;
  ClipOptions clip;
};

class Adagrad : public Optimizer {
 public:
  explicit Adagrad(LearningRate learning_rate = 0.001, AdagradOptions options = {});

  std::vector<std::string> slot_names() const override { return {"accumulator"}; }

 protected:
  void update(const Update& u) override;
  double slot_initial_value(const std::string&) const override {
    return options_.initial_accumulator_value;
  }

 private:
  AdagradOptions options_;
};

}  // namespace duet::optimizers
