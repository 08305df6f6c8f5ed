#include "optimizers/learning_rate.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "ops/math/math_ops.h"
#include "ops/math/operators.h"

namespace duet::optimizers {
namespace {

Tensor Scalar(double value, const Tensor& like) { return scalar(value, like.dtype()); }

}  // namespace

ExponentialDecay::ExponentialDecay(double initial_learning_rate, double decay_steps,
                                   double decay_rate, bool staircase)
    : initial_learning_rate(initial_learning_rate),
      decay_steps(decay_steps),
      decay_rate(decay_rate),
      staircase(staircase) {
  if (!(decay_steps > 0)) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("ExponentialDecay: decay_steps must be positive, got ", decay_steps)));
  }
}

Tensor ExponentialDecay::operator()(const Tensor& step) const {
  Tensor p = step / decay_steps;
  if (staircase) p = floor(p);
  return initial_learning_rate * pow(Scalar(decay_rate, step), p);
}

PiecewiseConstantDecay::PiecewiseConstantDecay(std::vector<double> boundaries,
                                               std::vector<double> values)
    : boundaries(std::move(boundaries)), values(std::move(values)) {
  if (this->values.size() != this->boundaries.size() + 1) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("PiecewiseConstantDecay: needs one more value than boundaries, got ",
                     this->boundaries.size(), " boundaries and ", this->values.size(), " values")));
  }
}

Tensor PiecewiseConstantDecay::operator()(const Tensor& step) const {
  // From the last interval down: each boundary that step does not pass selects its value.
  Tensor rate = Scalar(values.back(), step);
  for (size_t i = boundaries.size(); i-- > 0;) {
    rate = where(step <= boundaries[i], Scalar(values[i], step), rate);
  }
  return rate;
}

CosineDecay::CosineDecay(double initial_learning_rate, double decay_steps, double alpha,
                         std::optional<double> warmup_target, double warmup_steps)
    : initial_learning_rate(initial_learning_rate),
      decay_steps(decay_steps),
      alpha(alpha),
      warmup_target(warmup_target),
      warmup_steps(warmup_steps) {
  if (!(decay_steps > 0)) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("CosineDecay: decay_steps must be positive, got ", decay_steps)));
  }
}

Tensor CosineDecay::operator()(const Tensor& step) const {
  const auto decay = [&](const Tensor& decay_step, double from) {
    const Tensor completed = decay_step / decay_steps;
    const Tensor cosine = 0.5 * (1.0 + cos(M_PI * completed));
    return from * ((1 - alpha) * cosine + alpha);
  };
  if (!warmup_target) return decay(minimum(step, Scalar(decay_steps, step)), initial_learning_rate);
  const Tensor s = minimum(step, Scalar(decay_steps + warmup_steps, step));
  const Tensor warmup =
      (*warmup_target - initial_learning_rate) * (s / warmup_steps) + initial_learning_rate;
  return where(s < warmup_steps, warmup, decay(s - warmup_steps, *warmup_target));
}

LearningRate::LearningRate(double value) : value_(value) {}

Tensor LearningRate::at(const Tensor& step) const {
  return schedule_ ? (*schedule_)(step) : scalar(value_, step.dtype());
}

}  // namespace duet::optimizers
