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
  auto [y, p] = internal::MatchShapes(loss, internal::CastLabels(loss, labels, predictions, site),
                                      predictions, site);
  return subtract(p, y, site);
}

Tensor PerSampleMean(const Tensor& elementwise, Reduction reduction, OpSite site) {
  return reduce_loss(reduce_mean(elementwise, -1, false, site), reduction, site);
}

}  // namespace

Tensor mean_squared_error(const Tensor& labels, const Tensor& predictions, Reduction reduction,
                          OpSite site) {
  const Tensor e = Difference("mean_squared_error", labels, predictions, site);
  return PerSampleMean(square(e, site), reduction, site);
}

Tensor mean_absolute_error(const Tensor& labels, const Tensor& predictions, Reduction reduction,
                           OpSite site) {
  const Tensor e = Difference("mean_absolute_error", labels, predictions, site);
  return PerSampleMean(abs(e, site), reduction, site);
}

Tensor huber(const Tensor& labels, const Tensor& predictions, double delta, Reduction reduction,
             OpSite site) {
  const Tensor e = Difference("huber", labels, predictions, site);
  const DType dtype = e.dtype();
  const Tensor abs_e = abs(e, site);
  const Tensor d = scalar(delta, dtype), half = scalar(0.5, dtype);
  // The quadratic part near 0 and the linear part beyond delta meet with equal slopes.
  const Tensor quadratic = half * square(e, site);
  const Tensor linear = d * abs_e - scalar(0.5 * delta * delta, dtype);
  return PerSampleMean(where(less_equal(abs_e, d, site), quadratic, linear, site), reduction, site);
}

}  // namespace duet::losses
