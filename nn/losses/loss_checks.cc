#include "nn/losses/loss_checks.h"

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "ops/array/array_ops.h"
#include "ops/math/math_ops.h"

namespace duet::losses::internal {
namespace {

std::string Describe(absl::string_view role, const Tensor& t) {
  return absl::StrCat(role, ": ", DTypeName(t.dtype()), " ", t.shape().str());
}

// Whether `t` has a known rank whose last dim is 1.
bool LastDimIsOne(const Tensor& t) {
  return !t.shape().unknown_rank() && t.rank() > 0 && t.shape().dim(t.rank() - 1) == 1;
}

}  // namespace

OpSite Unnamed(OpSite site) {
  site.name = {};
  return site;
}

void ThrowLossError(absl::string_view loss, absl::string_view message, const Tensor& labels,
                    const Tensor& predictions, OpSite site) {
  const std::string at = site.location.line() == 0 ? "" : absl::StrCat(" (at ", site.str(), ")");
  throw Error(absl::InvalidArgumentError(
      absl::StrCat(loss, ": ", message, " [", Describe("labels", labels), ", ",
                   Describe("predictions", predictions), "]", at)));
}

void CheckPredictions(absl::string_view loss, const Tensor& labels, const Tensor& predictions,
                      OpSite site) {
  if (!labels.defined() || !predictions.defined()) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat(loss, ": labels and predictions must be defined tensors")));
  }
  if (!IsFloating(predictions.dtype())) {
    ThrowLossError(loss, "predictions must be floating-point", labels, predictions, site);
  }
  if (!predictions.shape().unknown_rank() && predictions.rank() == 0) {
    ThrowLossError(loss, "predictions must have rank >= 1 (the loss reduces the last axis)", labels,
                   predictions, site);
  }
}

Tensor CastLabels(absl::string_view loss, const Tensor& labels, const Tensor& predictions,
                  OpSite site) {
  CheckPredictions(loss, labels, predictions, site);
  if (labels.dtype() == kResource || labels.dtype() == kVariant) {
    ThrowLossError(loss, "labels must be numeric or bool", labels, predictions, site);
  }
  return labels.dtype() == predictions.dtype() ? labels : cast(labels, predictions.dtype(), site);
}

void SqueezeOrExpandToSameRank(Tensor& a, Tensor& b, OpSite site) {
  if (a.shape().unknown_rank() || b.shape().unknown_rank()) return;
  if (a.rank() == b.rank() + 1 && LastDimIsOne(a)) {
    if (b.rank() == 1)
      b = expand_dims(b, -1, site);
    else
      a = squeeze(a, {-1}, site);
  } else if (b.rank() == a.rank() + 1 && LastDimIsOne(b)) {
    SqueezeOrExpandToSameRank(b, a, site);
  }
}

std::pair<Tensor, Tensor> MatchShapes(absl::string_view loss, const Tensor& labels,
                                      const Tensor& predictions, OpSite site) {
  Tensor y = labels, p = predictions;
  SqueezeOrExpandToSameRank(y, p, site);
  if (!y.shape().IsCompatibleWith(p.shape())) {
    ThrowLossError(loss, "labels and predictions must have the same shape", labels, predictions,
                   site);
  }
  return {y, p};
}

std::pair<Tensor, Tensor> CastAndMatch(absl::string_view loss, const Tensor& labels,
                                       const Tensor& predictions, OpSite site) {
  return MatchShapes(loss, CastLabels(loss, labels, predictions, site), predictions, site);
}

Tensor LastDim(const Tensor& t, DType dtype, OpSite site) {
  const Shape& shape = t.shape();
  if (!shape.unknown_rank() && shape.rank() > 0 && shape.dim(shape.rank() - 1) >= 0) {
    return scalar(static_cast<double>(shape.dim(shape.rank() - 1)), dtype);
  }
  const Tensor dims = shape_of(t, kInt32, site);
  return cast(strided_slice(dims, {-1}, {0}, {1}, {.shrink_axis_mask = 1}, site), dtype, site);
}

}  // namespace duet::losses::internal
