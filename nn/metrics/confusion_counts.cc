#include "nn/metrics/confusion_counts.h"

#include "core/constant.h"
#include "nn/losses/loss_checks.h"
#include "ops/array/array_ops.h"
#include "ops/math/math_ops.h"
#include "ops/math/operators.h"
#include "ops/reduction/reduction_ops.h"

namespace duet::metrics::internal {
namespace {

Tensor Row(const Tensor& x, OpSite site) { return reshape(x, Shape{1, -1}, site); }

// Keras' weights: one per sample (a trailing dim added), per entry, or a scalar, broadcast to the
// predictions' shape.
Tensor BroadcastWeights(const Tensor& sample_weight, const Tensor& y_pred, OpSite site) {
  if (!sample_weight.defined()) return ones_like(y_pred, site);
  Tensor w = cast(sample_weight, kFloat32, site);
  if (w.rank() > 0 && w.rank() == y_pred.rank() - 1) w = expand_dims(w, -1, site);
  if (y_pred.shape().is_fully_defined()) return broadcast_to(w, y_pred.shape(), site);
  return broadcast_to(w, shape_of(y_pred, kInt32, site), site);
}

// Weighted count per threshold of the entries where `label` and `positive` both hold.
Tensor Count(const Tensor& label, const Tensor& positive, const Tensor& weights) {
  return reduce_sum(cast(logical_and(label, positive), kFloat32) * weights, 1);
}

}  // namespace

std::vector<Tensor> FlattenForCounts(const char* metric, const Tensor& y_true, const Tensor& y_pred,
                                     const Tensor& sample_weight, OpSite site) {
  auto [t, p] = losses::internal::MatchShapes(metric, y_true, y_pred, site);
  p = cast(p, kFloat32, site);
  const Tensor labels = not_equal(cast(t, kFloat32, site), scalar(0, kFloat32), site);
  const Tensor weights = BroadcastWeights(sample_weight, p, site);
  return {Row(labels, site), Row(p, site), Row(weights, site)};
}

ConfusionCounts SumCounts(const Tensor& labels, const Tensor& weights, const Tensor& positive) {
  const Tensor negative_label = logical_not(labels), negative = logical_not(positive);
  return {Count(labels, positive, weights), Count(negative_label, positive, weights),
          Count(negative_label, negative, weights), Count(labels, negative, weights)};
}

}  // namespace duet::metrics::internal
