#include "nn/losses/crossentropy.h"

#include <vector>

#include "core/constant.h"
#include "nn/losses/loss_checks.h"
#include "ops/array/array_ops.h"
#include "ops/math/math_ops.h"
#include "ops/math/operators.h"
#include "ops/nn/nn_ops.h"
#include "ops/reduction/reduction_ops.h"

namespace duet::losses {
namespace {

using internal::ThrowLossError;

Tensor ClipProbabilities(const Tensor& p, OpSite site) {
  return clip_by_value(p, scalar(kEpsilon, p.dtype()), scalar(1 - kEpsilon, p.dtype()), site);
}

// The fused cross-entropy ops take [batch, classes]: other ranks are flattened to rows and the
// per-row losses given back the leading dims of `logits`.
template <typename FusedOp>
Tensor OverRows(FusedOp fused, const Tensor& labels, const Tensor& logits, bool sparse,
                OpSite site) {
  const Shape& shape = logits.shape();
  if (shape.rank() == 2) return fused(labels, logits, site);
  const int64_t classes = shape.dim(shape.rank() - 1);
  const Tensor rows = reshape(logits, Shape{-1, classes}, site);
  const Tensor row_labels =
      sparse ? reshape(labels, Shape{-1}, site) : reshape(labels, Shape{-1, classes}, site);
  const Tensor losses = fused(row_labels, rows, site);
  const Shape leading(shape.dims().subspan(0, shape.rank() - 1));
  if (leading.is_fully_defined()) return reshape(losses, leading, site);
  const Tensor dims = shape_of(logits, kInt32, site);
  return reshape(losses, strided_slice(dims, {0}, {-1}, {1}, {}, site), site);
}

// Fused ops need the class count to flatten other ranks into rows.
void CheckRowsPossible(const char* loss, const Tensor& labels, const Tensor& predictions,
                       OpSite site) {
  const Shape& shape = predictions.shape();
  if (shape.unknown_rank() || (shape.rank() != 2 && shape.dim(shape.rank() - 1) < 0)) {
    ThrowLossError(loss, "predictions need a known rank and, unless 2-D, a known class dim", labels,
                   predictions, site);
  }
}

// Keras' sparse label shapes: [d0..dn] or [d0..dn, 1] against predictions [d0..dn, classes].
Tensor SparseLabels(const Tensor& labels, const Tensor& predictions, OpSite site) {
  constexpr const char* kLoss = "sparse_categorical_crossentropy";
  if (labels.dtype() != kInt32 && labels.dtype() != kInt64) {
    ThrowLossError(kLoss, "labels must be int32 or int64 class ids", labels, predictions, site);
  }
  Tensor ids = labels;
  const Shape& p = predictions.shape();
  if (!labels.shape().unknown_rank() && labels.rank() == p.rank() && labels.rank() > 0 &&
      labels.shape().dim(labels.rank() - 1) == 1) {
    ids = squeeze(labels, {-1}, site);
  }
  const Shape leading(p.dims().subspan(0, p.rank() - 1));
  if (!ids.shape().IsCompatibleWith(leading)) {
    ThrowLossError(kLoss, "labels must have the shape of predictions without its last dim", labels,
                   predictions, site);
  }
  return ids;
}

Tensor SmoothLabels(const Tensor& y, double smoothing, const Tensor& classes) {
  return y * scalar(1 - smoothing, y.dtype()) + scalar(smoothing, y.dtype()) / classes;
}

// TensorFlow's sigmoid_cross_entropy_with_logits: max(x, 0) - x * z + log(1 + exp(-|x|)), which
// neither overflows for large |x| nor loses precision near 0. max and -|x| are selects on x >= 0
// rather than relu and abs, whose gradients at 0 are 0: the selects' gradients add up to the
// true sigmoid(0) - z at a logit of exactly 0 (a zero-initialized output layer's).
Tensor SigmoidCrossEntropy(const Tensor& z, const Tensor& x, OpSite site) {
  const Tensor non_negative = greater_equal(x, scalar(0, x.dtype()), site);
  const Tensor positive_part = where(non_negative, x, zeros_like(x, site), site);
  const Tensor minus_abs = where(non_negative, negative(x, site), x, site);
  return positive_part - x * z + log1p(exp(minus_abs, site), site);
}

Tensor BinaryFromProbabilities(const Tensor& z, const Tensor& p, OpSite site) {
  const Tensor clipped = ClipProbabilities(p, site);
  const Tensor one = scalar(1, p.dtype());
  return negative(z * log(clipped, site) + (one - z) * log(one - clipped, site), site);
}

}  // namespace

Tensor sparse_categorical_crossentropy(const Tensor& labels, const Tensor& predictions,
                                       bool from_logits, Reduction reduction, OpSite site) {
  const OpSite at = internal::Unnamed(site);
  constexpr const char* kLoss = "sparse_categorical_crossentropy";
  internal::CheckPredictions(kLoss, labels, predictions, at);
  CheckRowsPossible(kLoss, labels, predictions, at);
  const Tensor ids = SparseLabels(labels, predictions, at);
  // From probabilities, Keras takes logs and lets the op's log-softmax renormalize them.
  const Tensor logits = from_logits ? predictions : log(ClipProbabilities(predictions, at), at);
  const auto fused = [](const Tensor& l, const Tensor& x, OpSite s) {
    return sparse_softmax_cross_entropy_with_logits(l, x, s);
  };
  return reduce_loss(OverRows(fused, ids, logits, /*sparse=*/true, at), reduction, site);
}

Tensor categorical_crossentropy(const Tensor& labels, const Tensor& predictions, bool from_logits,
                                double label_smoothing, Reduction reduction, OpSite site) {
  const OpSite at = internal::Unnamed(site);
  constexpr const char* kLoss = "categorical_crossentropy";
  auto [y, p] = internal::CastAndMatch(kLoss, labels, predictions, at);
  if (label_smoothing != 0) {
    y = SmoothLabels(y, label_smoothing, internal::LastDim(y, y.dtype(), at));
  }
  if (from_logits) {
    CheckRowsPossible(kLoss, labels, p, at);
    const auto fused = [](const Tensor& l, const Tensor& x, OpSite s) {
      return softmax_cross_entropy_with_logits(l, x, s);
    };
    return reduce_loss(OverRows(fused, y, p, /*sparse=*/false, at), reduction, site);
  }
  const Tensor normalized = p / reduce_sum(p, -1, /*keep_dims=*/true, at);
  const Tensor per_sample =
      negative(reduce_sum(y * log(ClipProbabilities(normalized, at), at), -1, false, at), at);
  return reduce_loss(per_sample, reduction, site);
}

Tensor binary_crossentropy(const Tensor& labels, const Tensor& predictions, bool from_logits,
                           double label_smoothing, Reduction reduction, OpSite site) {
  const OpSite at = internal::Unnamed(site);
  constexpr const char* kLoss = "binary_crossentropy";
  auto [z, p] = internal::CastAndMatch(kLoss, labels, predictions, at);
  if (label_smoothing != 0) z = SmoothLabels(z, label_smoothing, scalar(2, z.dtype()));
  const Tensor elementwise =
      from_logits ? SigmoidCrossEntropy(z, p, at) : BinaryFromProbabilities(z, p, at);
  return reduce_loss(reduce_mean(elementwise, -1, false, at), reduction, site);
}

}  // namespace duet::losses
