#include "nn/metrics/sum.h"

#include <utility>

#include "nn/metrics/samplewise.h"
#include "ops/reduction/reduction_ops.h"

namespace duet::metrics {

Sum::Sum(std::string name) : Metric(std::move(name)), total_(add_state("total")) {}

void Sum::update_state(const Tensor& values, const Tensor& sample_weight, OpSite site) {
  const internal::Samplewise s =
      internal::ReduceToSamplewise("Sum", values, sample_weight, /*mean=*/false, site);
  total_.assign_add(reduce_sum(s.values, {}, false, site), site);
}

Tensor Sum::result() const { return total_.value(); }

Tensor Sum::operator()(const Tensor& values, const Tensor& sample_weight, OpSite site) {
  update_state(values, sample_weight, site);
  return result();
}

}  // namespace duet::metrics
