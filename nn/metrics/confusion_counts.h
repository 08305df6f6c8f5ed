// Weighted true/false positive/negative counts per threshold, for Precision, Recall and AUC
// (Keras' metrics_utils.update_confusion_matrix_variables, single-label).
#pragma once

#include <vector>

#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet::metrics::internal {

// Each count is float32 of shape [thresholds]: the sum of the sample weights of the entries whose
// label is positive (y_true != 0) or negative, and whose prediction is above the threshold or not.
struct ConfusionCounts {
  Tensor true_positives, false_positives, true_negatives, false_negatives;
};

// y_true and y_pred must have the same shape up to a trailing size-1 dim; sample_weight
// (undefined: 1) must broadcast to y_pred's shape, or to it without its last dim. Errors name
// `metric` and the shapes.
//
// `predicted_positive` gets y_pred flattened to [1, n] (float32) and returns a bool [thresholds,
// n] matrix: which predictions count as positive at each threshold.
template <typename PredictedPositive>
ConfusionCounts CountConfusion(const char* metric, const Tensor& y_true, const Tensor& y_pred,
                               const Tensor& sample_weight, PredictedPositive predicted_positive,
                               OpSite site);

// The untemplated part: returns {labels [1, n] bool, predictions [1, n] float32, weights [1, n]}.
std::vector<Tensor> FlattenForCounts(const char* metric, const Tensor& y_true, const Tensor& y_pred,
                                     const Tensor& sample_weight, OpSite site);
// The counts from the flattened labels and weights and the [thresholds, n] positive predictions.
ConfusionCounts SumCounts(const Tensor& labels, const Tensor& weights, const Tensor& positive);

template <typename PredictedPositive>
ConfusionCounts CountConfusion(const char* metric, const Tensor& y_true, const Tensor& y_pred,
                               const Tensor& sample_weight, PredictedPositive predicted_positive,
                               OpSite site) {
  const std::vector<Tensor> flat = FlattenForCounts(metric, y_true, y_pred, sample_weight, site);
  return SumCounts(flat[0], flat[2], predicted_positive(flat[1]));
}

}  // namespace duet::metrics::internal
