// Mean: the (weighted) mean of every value seen (keras.metrics.Mean).
#pragma once

#include <string>

#include "core/tensor.h"
#include "eager/variable.h"
#include "nn/metrics/metric.h"
#include "ops/op_site.h"

namespace duet::metrics {

// Accumulates total = sum(values * weights) and count = sum(weights) (the number of samples
// without weights) in float32 variables "total" and "count"; result() = total / count, 0 before
// any update. Values of rank > 1 count per sample (batch = first dim): each sample contributes
// the mean of its values, as Keras does. `m(0.f)` works: a C++ number converts to a Tensor.
class Mean : public Metric {
 public:
  explicit Mean(std::string name = "mean");

  // Adds `values` (any real dtype, cast to float32), weighted by `sample_weight` when defined:
  // a scalar, one weight per sample, or the values' shape (see internal::ReduceToSamplewise).
  void update_state(const Tensor& values, const Tensor& sample_weight = Tensor(), OpSite site = {});
  Tensor result() const override;
  // update_state, then result (Keras' __call__).
  Tensor operator()(const Tensor& values, const Tensor& sample_weight = Tensor(), OpSite site = {});

 protected:
  // Adds per-sample `values` to the state; for the metrics built on Mean (the accuracies).
  // `metric` names the caller in errors.
  void accumulate(const char* metric, const Tensor& values, const Tensor& sample_weight,
                  OpSite site);

 private:
  Variable total_, count_;
};

}  // namespace duet::metrics
