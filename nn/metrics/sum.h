// Sum: the (weighted) sum of every value seen (keras.metrics.Sum).
#pragma once

#include <string>

#include "core/tensor.h"
#include "eager/variable.h"
#include "nn/metrics/metric.h"
#include "ops/op_site.h"

namespace duet::metrics {

// Accumulates sum(values * weights) in the float32 variable "total" (Note [Metric state]).
class Sum : public Metric {
 public:
  explicit Sum(std::string name = "sum");

  // Adds `values` (cast to float32), weighted by `sample_weight` when defined (as Mean's).
  void update_state(const Tensor& values, const Tensor& sample_weight = Tensor(), OpSite site = {});
  Tensor result() const override;
  // update_state, then result (Keras' __call__).
  Tensor operator()(const Tensor& values, const Tensor& sample_weight = Tensor(), OpSite site = {});

 private:
  Variable total_;
};

}  // namespace duet::metrics
