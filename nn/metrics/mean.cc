#include "nn/metrics/mean.h"

#include <utility>

#include "core/constant.h"
#include "nn/metrics/samplewise.h"
#include "ops/array/array_ops.h"
#include "ops/math/math_ops.h"
#include "ops/reduction/reduction_ops.h"

namespace duet::metrics {
namespace {

// How many samples unweighted values hold: the batch dim, read at run time when unknown.
Tensor SampleCount(const Tensor& values) {
  if (values.rank() == 0) return scalar(1, kFloat32);
  const int64_t batch = values.shape().dim(0);
  if (batch >= 0) return scalar(static_cast<double>(batch), kFloat32);
  return cast(size(values), kFloat32);  // rank 1 here: the size is the batch
}

}  // namespace

Mean::Mean(std::string name)
    : Metric(std::move(name)), total_(add_state("total")), count_(add_state("count")) {}

void Mean::accumulate(const char* metric, const Tensor& values, const Tensor& sample_weight,
                      OpSite site) {
  const internal::Samplewise s =
      internal::ReduceToSamplewise(metric, values, sample_weight, /*mean=*/true, site);
  total_.assign_add(reduce_sum(s.values, {}, false, site), site);
  count_.assign_add(
      s.weights.defined() ? reduce_sum(s.weights, {}, false, site) : SampleCount(s.values), site);
}

void Mean::update_state(const Tensor& values, const Tensor& sample_weight, OpSite site) {
  accumulate("Mean", values, sample_weight, site);
}

Tensor Mean::result() const { return divide_no_nan(total_.value(), count_.value()); }

Tensor Mean::operator()(const Tensor& values, const Tensor& sample_weight, OpSite site) {
  update_state(values, sample_weight, site);
  return result();
}

}  // namespace duet::metrics
