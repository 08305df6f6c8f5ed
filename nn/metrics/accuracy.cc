#include "nn/metrics/accuracy.h"

#include "nn/losses/loss_checks.h"
#include "ops/array/array_ops.h"
#include "ops/math/math_ops.h"
#include "ops/reduction/reduction_ops.h"

namespace duet::metrics {
namespace {

using losses::internal::ThrowLossError;

Tensor Equal(const Tensor& a, const Tensor& b, OpSite site) {
  return cast(equal(a, b, site), kFloat32, site);
}

// Keras' sparse labels: [d0..dn] or [d0..dn, 1] against predictions [d0..dn, classes].
Tensor ClassIds(const char* metric, const Tensor& y_true, const Tensor& y_pred, OpSite site) {
  const Shape& p = y_pred.shape();
  if (p.unknown_rank() || p.rank() == 0) {
    ThrowLossError(metric, "predictions must have a known rank >= 1", y_true, y_pred, site);
  }
  Tensor ids = y_true;
  if (!ids.shape().unknown_rank() && ids.rank() == p.rank() &&
      ids.shape().dim(ids.rank() - 1) == 1) {
    ids = squeeze(ids, {-1}, site);
  }
  if (!ids.shape().IsCompatibleWith(Shape(p.dims().subspan(0, p.rank() - 1)))) {
    ThrowLossError(metric, "labels must have the shape of predictions without its last dim", y_true,
                   y_pred, site);
  }
  return ids;
}

}  // namespace

void MatchRate::update_state(const Tensor& y_true, const Tensor& y_pred,
                             const Tensor& sample_weight, OpSite site) {
  accumulate(kind_, matches(y_true, y_pred, site), sample_weight, site);
}

Tensor MatchRate::operator()(const Tensor& y_true, const Tensor& y_pred,
                             const Tensor& sample_weight, OpSite site) {
  update_state(y_true, y_pred, sample_weight, site);
  return result();
}

Tensor Accuracy::matches(const Tensor& y_true, const Tensor& y_pred, OpSite site) const {
  const Tensor labels =
      y_true.dtype() == y_pred.dtype() ? y_true : cast(y_true, y_pred.dtype(), site);
  auto [t, p] = losses::internal::MatchShapes(kind(), labels, y_pred, site);
  return Equal(t, p, site);
}

Tensor SparseCategoricalAccuracy::matches(const Tensor& y_true, const Tensor& y_pred,
                                          OpSite site) const {
  const Tensor ids = ClassIds(kind(), y_true, y_pred, site);
  // Compared as float64, which holds every int32 class id and float32 label exactly.
  const Tensor predicted = cast(argmax(y_pred, -1, kInt64, site), kFloat64, site);
  return Equal(cast(ids, kFloat64, site), predicted, site);
}

Tensor CategoricalAccuracy::matches(const Tensor& y_true, const Tensor& y_pred, OpSite site) const {
  if (!y_true.shape().IsCompatibleWith(y_pred.shape()) || y_pred.shape().rank() == 0) {
    ThrowLossError(kind(), "labels and predictions must have the same shape, of rank >= 1", y_true,
                   y_pred, site);
  }
  return Equal(argmax(y_true, -1, kInt64, site), argmax(y_pred, -1, kInt64, site), site);
}

}  // namespace duet::metrics
