// AUC: the area under the ROC curve, estimated from counts at fixed thresholds
// (keras.metrics.AUC with its defaults: curve "ROC", summation "interpolation").
#pragma once

#include <cstdint>
#include <string>

#include "core/tensor.h"
#include "eager/variable.h"
#include "nn/metrics/metric.h"
#include "ops/op_site.h"

namespace duet::metrics {

// Keras' thresholds: -epsilon, i / (num_thresholds - 1) for i in [1, num_thresholds - 2], and
// 1 + epsilon. Predictions are clipped to [0, 1] and counted positive above each threshold (with
// Keras' bucketing, ceil(p * (num_thresholds - 1)) - 1, so values match Keras to the last bit);
// labels are positive when != 0. State: float32 [num_thresholds] variables "true_positives",
// "true_negatives", "false_positives", "false_negatives". result() sums the trapezoids of
// (false positive rate, recall) between consecutive thresholds. num_thresholds must be > 1.
class AUC : public Metric {
 public:
  explicit AUC(int64_t num_thresholds = 200, std::string name = "auc");
  void update_state(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = Tensor(), OpSite site = {});
  Tensor result() const override;
  // update_state, then result.
  Tensor operator()(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = Tensor(), OpSite site = {});

  int64_t num_thresholds() const { return num_thresholds_; }

 private:
  int64_t num_thresholds_;
  Variable true_positives_, true_negatives_, false_positives_, false_negatives_;
};

}  // namespace duet::metrics
