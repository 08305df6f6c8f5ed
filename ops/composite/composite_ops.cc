#include "ops/composite/composite_ops.h"

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "ops/math/math_ops.h"
#include "ops/nn/nn_ops.h"
#include "ops/random/random_ops.h"
#include "ops/reduction/reduction_ops.h"

namespace duet {
namespace {

[[noreturn]] void ThrowInvalid(absl::string_view op, const std::string& why, const OpSite& site) {
  throw Error(absl::InvalidArgumentError(absl::StrCat(op, ": ", why, " (at ", site.str(), ")")));
}

// Views x as (N, 1, 1, C) so FusedBatchNormV3 (NHWC) normalizes over every axis but the last.
Tensor AsNhwc(const Tensor& x, const OpSite& site) {
  if (x.rank() < 1) ThrowInvalid("batch_norm", "x must have a channel axis (rank >= 1)", site);
  return reshape(x, Shape{-1, 1, 1, x.shape().dim(x.rank() - 1)}, site);
}

}  // namespace

Tensor dropout(const Tensor& x, double rate, int64_t seed, OpSite site) {
  if (!(rate >= 0 && rate < 1)) {
    ThrowInvalid("dropout", absl::StrCat("rate must be in [0, 1), got ", rate), site);
  }
  if (rate == 0) return x;
  Tensor keep = greater_equal(random_uniform(x.shape(), seed, x.dtype(), 0, 1, site),
                              scalar(rate, x.dtype()), site);
  return divide(multiply(x, cast(keep, x.dtype(), site), site), scalar(1 - rate, x.dtype()), site);
}

Tensor clip_by_norm(const Tensor& t, double clip_norm, std::vector<int64_t> axes, OpSite site) {
  if (!(clip_norm > 0)) {
    ThrowInvalid("clip_by_norm", absl::StrCat("clip_norm must be positive, got ", clip_norm), site);
  }
  const Axes reduce_axes = axes.empty() ? Axes() : Axes(std::move(axes));
  Tensor sum_sq = reduce_sum(square(t, site), reduce_axes, /*keep_dims=*/true, site);
  // A zero norm would divide 0 by 0 in the gradient of sqrt; route it through 1 instead.
  Tensor nonzero = greater(sum_sq, zeros_like(sum_sq, site), site);
  Tensor norm = where(nonzero, sqrt(where(nonzero, sum_sq, ones_like(sum_sq, site), site), site),
                      sum_sq, site);
  Tensor limit = scalar(clip_norm, t.dtype());
  return divide(multiply(t, limit, site), maximum(norm, limit, site), site);
}

Tensor batch_norm(const Tensor& x, const Tensor& mean, const Tensor& variance, const Tensor& offset,
                  const Tensor& scale, double epsilon, OpSite site) {
  FusedBatchNormResult r = fused_batch_norm(AsNhwc(x, site), scale, offset, mean, variance,
                                            static_cast<float>(epsilon), false, site);
  return reshape(r.y, x.shape(), site);
}

BatchNormTraining batch_norm_training(const Tensor& x, const Tensor& offset, const Tensor& scale,
                                      double epsilon, OpSite site) {
  Tensor no_stats = zeros(Shape{0}, scale.dtype());  // training needs no running statistics
  FusedBatchNormResult r = fused_batch_norm(AsNhwc(x, site), scale, offset, no_stats, no_stats,
                                            static_cast<float>(epsilon), true, site);
  return {reshape(r.y, x.shape(), site), r.batch_mean, r.batch_variance};
}

}  // namespace duet
