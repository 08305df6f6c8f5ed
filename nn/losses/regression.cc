#include "nn/losses/regression.h"

#include <utility>

#include "core/constant.h"
#include "nn/losses/loss_checks.h"
#include "ops/math/math_ops.h"
#include "ops/math/operators.h"
#include "ops/reduction/reduction_ops.h"

namespace duet::losses {
namespace {

// predictions - labels, after the shared checks.
Tensor Difference(const char* loss, const Tensor& labels, const Tensor& predictions, OpSite site) {
  auto [y, p] = internal::CastAndMatch(loss, labels, predictions, site);
  return subtract(p, y, site);
}

// The per-sample means; only the reduction takes the caller's node name (Unnamed).
Tensor PerSampleMean(const Tensor& elementwise, Reduction reduction, OpSite site) {
  return reduce_loss(reduce_mean(elementwise, -1, false, internal::Unnamed(site)), reduction, site);
}

}  // namespace

Tensor mean_squared_error(const Tensor& labels, const Tensor& predictions, Reduction reduction,
                          OpSite site) {
  const OpSite at = internal::Unnamed(site);
  const Tensor e = Difference("mean_squared_error", labels, predictions, at);
  return PerSampleMean(square(e, at), reduction, site);
}

Tensor mean_absolute_error(const Tensor& labels, const Tensor& predictions, Reduction reduction,
                           OpSite site) {
  const OpSite at = internal::Unnamed(site);
  const Tensor e = Difference("mean_absolute_error", labels, predictions, at);
  return PerSampleMean(abs(e, at), reduction, site);
}

Tensor huber(const Tensor& labels, const Tensor& predictions, double delta, Reduction reduction,
             OpSite site) {
  const OpSite at = internal::Unnamed(site);
  const Tensor e = Difference("huber", labels, predictions, at);
  const DType dtype = e.dtype();
  const Tensor abs_e = abs(e, at);
  const Tensor d = scalar(delta, dtype), half = scalar(0.5, dtype);
  // The quadratic part near 0 and the linear part beyond delta meet with equal slopes.
  const Tensor quadratic = half * square(e, at);
  const Tensor linear = d * abs_e - scalar(0.5 * delta * delta, dtype);
  return PerSampleMean(where(less_equal(abs_e, d, at), quadratic, linear, at), reduction, site);
}

}  // namespace duet::losses
