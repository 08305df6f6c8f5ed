// Precision and Recall at a threshold (keras.metrics.Precision, keras.metrics.Recall).
#pragma once

#include <string>

#include "core/tensor.h"
#include "eager/variable.h"
#include "nn/metrics/metric.h"
#include "ops/op_site.h"

namespace duet::metrics {

// What Precision and Recall share: true positives / (true positives + one kind of miss), 0 before
// any count. A prediction is positive when y_pred > threshold and a label when y_true != 0;
// sample weights weight the counts. State: float32 [1] variables "true_positives" and the miss's
// ("false_positives" or "false_negatives"). Errors name the metric and both shapes (y_true and
// y_pred must match up to a trailing size-1 dim).
class ThresholdRatio : public Metric {
 public:
  void update_state(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = Tensor(), OpSite site = {});
  Tensor result() const override;
  // update_state, then result.
  Tensor operator()(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = Tensor(), OpSite site = {});

 protected:
  enum class Miss { kFalsePositives, kFalseNegatives };
  // `kind` names the metric in errors.
  ThresholdRatio(const char* kind, double threshold, std::string name, Miss miss);

 private:
  const char* kind_;
  float threshold_;
  Miss miss_;
  Variable true_positives_, misses_;
};

// true_positives / (true_positives + false_positives): how many positive predictions are right.
class Precision : public ThresholdRatio {
 public:
  explicit Precision(double threshold = 0.5, std::string name = "precision")
      : ThresholdRatio("Precision", threshold, std::move(name), Miss::kFalsePositives) {}
};

// true_positives / (true_positives + false_negatives): how many positive labels are found.
class Recall : public ThresholdRatio {
 public:
  explicit Recall(double threshold = 0.5, std::string name = "recall")
      : ThresholdRatio("Recall", threshold, std::move(name), Miss::kFalseNegatives) {}
};

}  // namespace duet::metrics
