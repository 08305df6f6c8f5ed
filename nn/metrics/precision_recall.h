// Precision and Recall at a threshold (keras.metrics.Precision, keras.metrics.Recall).
#pragma once

#include <string>

#include "core/tensor.h"
#include "eager/variable.h"
#include "nn/metrics/metric.h"
#include "ops/op_site.h"

namespace duet::metrics {

// true_positives / (true_positives + false_positives), 0 before any positive prediction. A
// prediction is positive when y_pred > threshold and a label when y_true != 0; sample weights
// weight the counts. State: float32 [1] variables "true_positives" and "false_positives". Errors
// name the metric and both shapes (y_true and y_pred must match up to a trailing size-1 dim).
class Precision : public Metric {
 public:
  explicit Precision(double threshold = 0.5, std::string name = "precision");
  void update_state(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = Tensor(), OpSite site = {});
  Tensor result() const override;
  // update_state, then result.
  Tensor operator()(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = Tensor(), OpSite site = {});

 private:
  float threshold_;
  Variable true_positives_, false_positives_;
};

// true_positives / (true_positives + false_negatives), 0 before any positive label; counting as
// Precision's. State: float32 [1] variables "true_positives" and "false_negatives".
class Recall : public Metric {
 public:
  explicit Recall(double threshold = 0.5, std::string name = "recall");
  void update_state(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = Tensor(), OpSite site = {});
  Tensor result() const override;
  // update_state, then result.
  Tensor operator()(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = Tensor(), OpSite site = {});

 private:
  float threshold_;
  Variable true_positives_, false_negatives_;
};

}  // namespace duet::metrics
