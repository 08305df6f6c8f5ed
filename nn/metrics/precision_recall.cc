#include "nn/metrics/precision_recall.h"

#include <utility>

#include "core/constant.h"
#include "nn/metrics/confusion_counts.h"
#include "ops/array/array_ops.h"
#include "ops/math/math_ops.h"
#include "ops/math/operators.h"
#include "ops/reduction/reduction_ops.h"

namespace duet::metrics {
namespace {

// The counts at the one threshold: predictions strictly above it are positive (as Keras).
internal::ConfusionCounts CountAt(const char* metric, float threshold, const Tensor& y_true,
                                  const Tensor& y_pred, const Tensor& sample_weight, OpSite site) {
  const auto above = [&](const Tensor& p) { return greater(p, scalar(threshold, kFloat32), site); };
  return internal::CountConfusion(metric, y_true, y_pred, sample_weight, above, site);
}

// The one-threshold ratio as a scalar, as Keras returns it for a single threshold.
Tensor Ratio(const Variable& hits, const Variable& misses) {
  const Tensor h = hits.value();
  return reshape(divide_no_nan(h, h + misses.value()), Shape{});
}

}  // namespace

Precision::Precision(double threshold, std::string name)
    : Metric(std::move(name)),
      threshold_(static_cast<float>(threshold)),
      true_positives_(add_state("true_positives", {1})),
      false_positives_(add_state("false_positives", {1})) {}

void Precision::update_state(const Tensor& y_true, const Tensor& y_pred,
                             const Tensor& sample_weight, OpSite site) {
  const auto counts = CountAt("Precision", threshold_, y_true, y_pred, sample_weight, site);
  true_positives_.assign_add(counts.true_positives, site);
  false_positives_.assign_add(counts.false_positives, site);
}

Tensor Precision::result() const { return Ratio(true_positives_, false_positives_); }

Tensor Precision::operator()(const Tensor& y_true, const Tensor& y_pred,
                             const Tensor& sample_weight, OpSite site) {
  update_state(y_true, y_pred, sample_weight, site);
  return result();
}

Recall::Recall(double threshold, std::string name)
    : Metric(std::move(name)),
      threshold_(static_cast<float>(threshold)),
      true_positives_(add_state("true_positives", {1})),
      false_negatives_(add_state("false_negatives", {1})) {}

void Recall::update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight,
                          OpSite site) {
  const auto counts = CountAt("Recall", threshold_, y_true, y_pred, sample_weight, site);
  true_positives_.assign_add(counts.true_positives, site);
  false_negatives_.assign_add(counts.false_negatives, site);
}

Tensor Recall::result() const { return Ratio(true_positives_, false_negatives_); }

Tensor Recall::operator()(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight,
                          OpSite site) {
  update_state(y_true, y_pred, sample_weight, site);
  return result();
}

}  // namespace duet::metrics
