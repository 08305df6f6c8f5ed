#include "nn/dropout.h"

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "nn/initializers.h"
#include "ops/array/array_ops.h"
#include "ops/math/math_ops.h"
#include "ops/math/operators.h"
#include "ops/random/random_ops.h"

namespace duet::nn {

Dropout::Dropout(Module* parent, std::string name, double rate, std::optional<int64_t> seed)
    : Layer(parent, std::move(name)), rate_(rate), seed_(seed ? *seed : initializers::next_seed()) {
  if (!(rate >= 0 && rate < 1)) {
    throw Error(
        absl::InvalidArgumentError(absl::StrCat("Dropout: rate must be in [0, 1), got ", rate)));
  }
}

Dropout::Dropout(double rate, std::optional<int64_t> seed)
    : Dropout(nullptr, "dropout", rate, seed) {}

void Dropout::build(const Shape&) {
  step_ = add_variable("seed_step", Shape{}, kInt64, initializers::zeros(), /*trainable=*/false);
}

Tensor Dropout::call(const Tensor& x, bool training, OpSite site) {
  if (!training || rate_ == 0) return x;
  const Tensor seed =
      stack({scalar(static_cast<double>(seed_), kInt64), step_.value(site)}, 0, site);
  const Tensor uniform = stateless_random_uniform(shape_of(x, kInt64, site), seed, x.dtype(), site);
  step_.assign_add(scalar(1, kInt64), site);
  const Tensor keep = cast(uniform >= rate_, x.dtype(), site);
  return x * keep * (1.0 / (1.0 - rate_));
}

}  // namespace duet::nn
