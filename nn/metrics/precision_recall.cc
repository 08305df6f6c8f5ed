#include "nn/metrics/precision_recall.h"

#include <utility>

#include "core/constant.h"
#include "nn/metrics/confusion_counts.h"
#include "ops/array/array_ops.h"
#include "ops/math/math_ops.h"
#include "ops/math/operators.h"

namespace duet::metrics {

ThresholdRatio::ThresholdRatio(const char* kind, double threshold, std::string name, Miss miss)
    : Metric(std::move(name)),
      kind_(kind),
      threshold_(static_cast<float>(threshold)),
      miss_(miss),
      true_positives_(add_state("true_positives", {1})),
      misses_(
          add_state(miss == Miss::kFalsePositives ? "false_positives" : "false_negatives", {1})) {}

void ThresholdRatio::update_state(const Tensor& y_true, const Tensor& y_pred,
                                  const Tensor& sample_weight, OpSite site) {
  // Predictions strictly above the threshold are positive, as in Keras.
  const auto above = [&](const Tensor& p) {
    return greater(p, scalar(threshold_, kFloat32), site);
  };
  const internal::ConfusionCounts counts =
      internal::CountConfusion(kind_, y_true, y_pred, sample_weight, above, site);
  true_positives_.assign_add(counts.true_positives, site);
  misses_.assign_add(
      miss_ == Miss::kFalsePositives ? counts.false_positives : counts.false_negatives, site);
}

Tensor ThresholdRatio::result() const {
  const Tensor hits = true_positives_.value();
  // A scalar, as Keras returns for a single threshold.
  return reshape(divide_no_nan(hits, hits + misses_.value()), Shape{});
}

Tensor ThresholdRatio::operator()(const Tensor& y_true, const Tensor& y_pred,
                                  const Tensor& sample_weight, OpSite site) {
  update_state(y_true, y_pred, sample_weight, site);
  return result();
}

}  // namespace duet::metrics
