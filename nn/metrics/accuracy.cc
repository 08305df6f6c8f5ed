#include "nn/metrics/accuracy.h"

#include "nn/losses/loss_checks.h"
#include "ops/array/array_ops.h"
#include "ops/math/math_ops.h"
#include "ops/reduction/reduction_ops.h"

namespace duet::metrics {
namespace {

using losses::internal::ThrowLossError;

Tensor Matches(const Tensor& a, const Tensor& b, OpSite site) {
  return cast(equal(a, b, site), kFloat32, site);
}

void CheckArgmaxShapes(const char* metric, const Tensor& y_true, const Tensor& y_pred,
                       const Tensor& ids, OpSite site) {
  const Shape& p = y_pred.shape();
  if (p.unknown_rank() || p.rank() == 0) {
    ThrowLossError(metric, "predictions must have a known rank >= 1", y_true, y_pred, site);
  }
  if (!ids.shape().IsCompatibleWith(Shape(p.dims().subspan(0, p.rank() - 1)))) {
    ThrowLossError(metric, "labels must have the shape of predictions without its last dim", y_true,
                   y_pred, site);
  }
}

}  // namespace

void Accuracy::update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight,
                            OpSite site) {
  const Tensor labels =
      y_true.dtype() == y_pred.dtype() ? y_true : cast(y_true, y_pred.dtype(), site);
  auto [t, p] = losses::internal::MatchShapes("Accuracy", labels, y_pred, site);
  accumulate("Accuracy", Matches(t, p, site), sample_weight, site);
}

Tensor Accuracy::operator()(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight,
                            OpSite site) {
  update_state(y_true, y_pred, sample_weight, site);
  return result();
}

void SparseCategoricalAccuracy::update_state(const Tensor& y_true, const Tensor& y_pred,
                                             const Tensor& sample_weight, OpSite site) {
  constexpr const char* kMetric = "SparseCategoricalAccuracy";
  Tensor ids = y_true;
  if (!ids.shape().unknown_rank() && ids.rank() == y_pred.rank() && ids.rank() > 0 &&
      ids.shape().dim(ids.rank() - 1) == 1) {
    ids = squeeze(ids, {-1}, site);
  }
  CheckArgmaxShapes(kMetric, y_true, y_pred, ids, site);
  // Compared as float64, which holds every int32 class id and float32 label exactly.
  const Tensor predicted = cast(argmax(y_pred, -1, kInt64, site), kFloat64, site);
  accumulate(kMetric, Matches(cast(ids, kFloat64, site), predicted, site), sample_weight, site);
}

Tensor SparseCategoricalAccuracy::operator()(const Tensor& y_true, const Tensor& y_pred,
                                             const Tensor& sample_weight, OpSite site) {
  update_state(y_true, y_pred, sample_weight, site);
  return result();
}

void CategoricalAccuracy::update_state(const Tensor& y_true, const Tensor& y_pred,
                                       const Tensor& sample_weight, OpSite site) {
  if (!y_true.shape().IsCompatibleWith(y_pred.shape()) || y_pred.shape().rank() == 0) {
    ThrowLossError("CategoricalAccuracy",
                   "labels and predictions must have the same shape, of rank >= 1", y_true, y_pred,
                   site);
  }
  const Tensor hits =
      Matches(argmax(y_true, -1, kInt64, site), argmax(y_pred, -1, kInt64, site), site);
  accumulate("CategoricalAccuracy", hits, sample_weight, site);
}

Tensor CategoricalAccuracy::operator()(const Tensor& y_true, const Tensor& y_pred,
                                       const Tensor& sample_weight, OpSite site) {
  update_state(y_true, y_pred, sample_weight, site);
  return result();
}

}  // namespace duet::metrics
