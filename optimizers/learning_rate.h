// Learning rates: a constant, or a schedule of the optimizer's step evaluated with ops, so a
// traced training step computes the rate of each step itself (no retrace per step).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "core/tensor.h"

namespace duet::optimizers {

// A learning rate as a function of the step (the number of updates made so far), with Keras'
// formulas.
class LearningRateSchedule {
 public:
  virtual ~LearningRateSchedule() = default;
  // The rate at `step`, a scalar of a float dtype; the result has that dtype.
  virtual Tensor operator()(const Tensor& step) const = 0;
};

// initial_learning_rate * decay_rate ^ (step / decay_steps), the exponent floored when
// `staircase`.
struct ExponentialDecay : LearningRateSchedule {
  ExponentialDecay(double initial_learning_rate, double decay_steps, double decay_rate,
                   bool staircase = false);
  Tensor operator()(const Tensor& step) const override;
  double initial_learning_rate, decay_steps, decay_rate;
  bool staircase;
};

// values[0] while step <= boundaries[0], values[i] while boundaries[i-1] < step <= boundaries[i],
// values.back() after the last boundary (values has one more entry than boundaries).
struct PiecewiseConstantDecay : LearningRateSchedule {
  PiecewiseConstantDecay(std::vector<double> boundaries, std::vector<double> values);
  Tensor operator()(const Tensor& step) const override;
  std::vector<double> boundaries, values;
};

// With warmup_target: linear from initial_learning_rate to warmup_target over warmup_steps, then
// a cosine decay from warmup_target to alpha * warmup_target over decay_steps. Without: the
// cosine decay from initial_learning_rate. Constant after the end, as Keras' CosineDecay.
struct CosineDecay : LearningRateSchedule {
  CosineDecay(double initial_learning_rate, double decay_steps, double alpha = 0,
              std::optional<double> warmup_target = {}, double warmup_steps = 0);
  Tensor operator()(const Tensor& step) const override;
  double initial_learning_rate, decay_steps, alpha;
  std::optional<double> warmup_target;
  double warmup_steps;
};

// What optimizers take: a number (Adam opt(1e-3)) or a schedule (Adam opt(CosineDecay(...))).
class LearningRate {
 public:
  LearningRate(double value);  // NOLINT(google-explicit-constructor)
  template <typename Schedule>
  requires std::derived_from<Schedule, LearningRateSchedule> LearningRate(
      Schedule schedule)  // NOLINT(google-explicit-constructor)
      : schedule_(std::make_shared<Schedule>(std::move(schedule))) {}

  // The rate at `step` (a scalar of a float dtype), in that dtype.
  Tensor at(const Tensor& step) const;
  bool is_constant() const { return schedule_ == nullptr; }

 private:
  double value_ = 0;
  std::shared_ptr<const LearningRateSchedule> schedule_;
};

}  // namespace duet::optimizers
