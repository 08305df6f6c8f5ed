#include "nn/losses/reduction.h"

#include "ops/array/array_ops.h"
#include "ops/reduction/reduction_ops.h"

namespace duet::losses {

Tensor reduce_loss(const Tensor& per_sample, Reduction reduction, OpSite site) {
  switch (reduction) {
    case Reduction::kNone:
      // A node name the caller gave names the per-sample losses.
      return site.name.empty() ? per_sample : identity(per_sample, site);
    case Reduction::kSum:
      return reduce_sum(per_sample, {}, false, site);
    case Reduction::kMean:
      break;
  }
  // An empty batch gives NaN (0 / 0), as Keras' sum_over_batch_size does.
  return reduce_mean(per_sample, {}, false, site);
}

}  // namespace duet::losses
