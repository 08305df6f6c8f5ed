#include "nn/metrics/metric.h"

#include <utility>

#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "ops/math/math_ops.h"

namespace duet::metrics {

Metric::Metric(std::string name) : nn::Module(std::move(name)) {}

void Metric::reset_state() {
  // A constant zero, not zeros_like(variable): no read of the old value enters a graph.
  for (const auto& [name, variable] : own_variables()) {
    variable.assign(zeros(variable.shape(), variable.dtype()));
  }
}

Variable Metric::add_state(const std::string& name, const Shape& shape) {
  const nn::Initializer zero = [](const Shape& s, DType dtype) { return zeros(s, dtype); };
  return add_variable(name, shape, kFloat32, zero, /*trainable=*/false);
}

Tensor divide_no_nan(const Tensor& numerator, const Tensor& denominator) {
  const Tensor is_zero = equal(denominator, scalar(0, denominator.dtype()));
  // The safe denominator keeps 0/0 out of the division, so no NaN is made and then masked.
  const Tensor safe = where(is_zero, ones_like(denominator), denominator);
  return where(is_zero, zeros_like(numerator), divide(numerator, safe));
}

}  // namespace duet::metrics
