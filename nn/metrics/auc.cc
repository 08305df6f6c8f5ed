#include "nn/metrics/auc.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "nn/metrics/confusion_counts.h"
#include "ops/array/array_ops.h"
#include "ops/math/math_ops.h"
#include "ops/math/operators.h"
#include "ops/reduction/reduction_ops.h"

namespace duet::metrics {
namespace {

int64_t CheckedThresholds(int64_t n) {
  if (n < 2) {
    throw Error(
        absl::InvalidArgumentError(absl::StrCat("AUC: num_thresholds must be > 1, got ", n)));
  }
  return n;
}

// Keras' evenly spaced thresholds take this shortcut instead of comparing with each threshold:
// bucket(p) = max(ceil(p * (n - 1)) - 1, 0), and p counts as positive at threshold i when
// bucket(p) >= i. Comparing p > i / (n - 1) instead can differ in the last bit at a boundary.
Tensor PositiveAtThresholds(const Tensor& p, int64_t n, OpSite site) {
  const Tensor clipped = clip_by_value(p, scalar(0, kFloat32), scalar(1, kFloat32), site);
  const Tensor bucket =
      relu(ceil(clipped * scalar(static_cast<double>(n - 1), kFloat32), site) - 1.f, site);
  const Tensor index = reshape(range(0, static_cast<double>(n), 1, kFloat32), Shape{n, 1}, site);
  return greater_equal(bucket, index, site);
}

// x[from:from + n - 1] along the only axis.
Tensor Part(const Tensor& x, int64_t from, int64_t n) { return slice(x, {from}, {n - 1}); }

}  // namespace

AUC::AUC(int64_t num_thresholds, std::string name)
    : Metric(std::move(name)),
      num_thresholds_(CheckedThresholds(num_thresholds)),
      true_positives_(add_state("true_positives", {num_thresholds})),
      true_negatives_(add_state("true_negatives", {num_thresholds})),
      false_positives_(add_state("false_positives", {num_thresholds})),
      false_negatives_(add_state("false_negatives", {num_thresholds})) {}

void AUC::update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight,
                       OpSite site) {
  const int64_t n = num_thresholds_;
  const auto positive = [&](const Tensor& p) { return PositiveAtThresholds(p, n, site); };
  const auto counts =
      internal::CountConfusion("AUC", y_true, y_pred, sample_weight, positive, site);
  true_positives_.assign_add(counts.true_positives, site);
  true_negatives_.assign_add(counts.true_negatives, site);
  false_positives_.assign_add(counts.false_positives, site);
  false_negatives_.assign_add(counts.false_negatives, site);
}

Tensor AUC::result() const {
  const Tensor tp = true_positives_.value(), fp = false_positives_.value();
  const Tensor recall = divide_no_nan(tp, tp + false_negatives_.value());
  const Tensor fp_rate = divide_no_nan(fp, fp + true_negatives_.value());
  const int64_t n = num_thresholds_;
  // Thresholds rise, so the rates fall: each step left adds a trapezoid.
  const Tensor heights = (Part(recall, 0, n) + Part(recall, 1, n)) * 0.5f;
  return reduce_sum((Part(fp_rate, 0, n) - Part(fp_rate, 1, n)) * heights);
}

Tensor AUC::operator()(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight,
                       OpSite site) {
  update_state(y_true, y_pred, sample_weight, site);
  return result();
}

}  // namespace duet::metrics
