#include "nn/metrics/samplewise.h"

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "nn/losses/loss_checks.h"
#include "ops/array/array_ops.h"
#include "ops/math/math_ops.h"
#include "ops/math/operators.h"
#include "ops/reduction/reduction_ops.h"

namespace duet::metrics::internal {
namespace {

// The axes [from, rank).
std::vector<int64_t> AxesFrom(int from, int rank) {
  std::vector<int64_t> axes;
  for (int i = from; i < rank; ++i) axes.push_back(i);
  return axes;
}

Tensor Reduce(const Tensor& x, int from, bool mean, OpSite site) {
  if (x.rank() <= from) return x;
  const std::vector<int64_t> axes = AxesFrom(from, x.rank());
  return mean ? reduce_mean(x, axes, false, site) : reduce_sum(x, axes, false, site);
}

void CheckKnownRank(const char* metric, const Tensor& t, const char* what, OpSite site) {
  if (t.defined() && t.shape().unknown_rank()) {
    throw Error(
        absl::InvalidArgumentError(absl::StrCat(metric, ": ", what, " must have a known rank, got ",
                                                t.shape().str(), " (at ", site.str(), ")")));
  }
}

Tensor BroadcastLike(const Tensor& x, const Tensor& like, OpSite site) {
  if (like.shape().is_fully_defined()) return broadcast_to(x, like.shape(), site);
  return broadcast_to(x, shape_of(like, kInt32, site), site);
}

}  // namespace

Samplewise ReduceToSamplewise(const char* metric, const Tensor& values, const Tensor& sample_weight,
                              bool mean, OpSite site) {
  CheckKnownRank(metric, values, "values", site);
  CheckKnownRank(metric, sample_weight, "sample_weight", site);
  Samplewise out{cast(values, kFloat32, site), Tensor()};
  if (sample_weight.defined()) {
    Tensor weights = cast(sample_weight, kFloat32, site);
    losses::internal::SqueezeOrExpandToSameRank(out.values, weights, site);
    out.values = Reduce(out.values, weights.rank(), mean, site);
    const int weight_rank = weights.rank();
    weights = BroadcastLike(weights, out.values, site);
    out.values = multiply(out.values, weights, site);
    out.weights = weight_rank > 1 ? Reduce(weights, 1, mean, site) : weights;
  }
  out.values = Reduce(out.values, 1, mean, site);
  return out;
}

}  // namespace duet::metrics::internal
