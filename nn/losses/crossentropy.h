// Keras 3's cross-entropy losses (keras.losses.*_crossentropy), built from op functions, so they
// run eagerly, traced by duet::function and in graphs, and are differentiable.
#pragma once

#include "core/tensor.h"
#include "nn/losses/reduction.h"
#include "ops/op_site.h"

namespace duet::losses {

// The probability clip of the from-probabilities paths, Keras' backend.epsilon().
inline constexpr double kEpsilon = 1e-7;

// Cross-entropy of int32/int64 class ids `labels` [d0, ..., dn] (or [d0, ..., dn, 1]) against
// `predictions` [d0, ..., dn, classes]: logits when `from_logits` (op
// SparseSoftmaxCrossEntropyWithLogits), else probabilities, clipped to [kEpsilon, 1 - kEpsilon]
// and renormalized (log then the same op, as Keras). The per-sample losses are [d0, ..., dn].
// Errors (duet::Error) name the loss and both dtypes and shapes: labels not integer, predictions
// not float32/float64, shapes that disagree, and (from the op) a label outside [0, classes).
Tensor sparse_categorical_crossentropy(const Tensor& labels, const Tensor& predictions,
                                       bool from_logits = false,
                                       Reduction reduction = Reduction::kMean, OpSite site = {});

// Cross-entropy of class distributions `labels` (cast to the predictions' dtype) against
// `predictions` of the same shape, over the last axis: logits when `from_logits` (op
// SoftmaxCrossEntropyWithLogits), else probabilities divided by their sum and clipped to
// [kEpsilon, 1 - kEpsilon]. `label_smoothing` s replaces labels y by y * (1 - s) + s / classes.
Tensor categorical_crossentropy(const Tensor& labels, const Tensor& predictions,
                                bool from_logits = false, double label_smoothing = 0,
                                Reduction reduction = Reduction::kMean, OpSite site = {});

// Binary cross-entropy of labels in [0, 1] (cast to the predictions' dtype) against
// `predictions` of the same shape, averaged over the last axis: logits when `from_logits`
// (TensorFlow's stable sigmoid_cross_entropy_with_logits), else probabilities clipped to
// [kEpsilon, 1 - kEpsilon]. `label_smoothing` s replaces labels y by y * (1 - s) + 0.5 * s.
Tensor binary_crossentropy(const Tensor& labels, const Tensor& predictions,
                           bool from_logits = false, double label_smoothing = 0,
                           Reduction reduction = Reduction::kMean, OpSite site = {});

}  // namespace duet::losses
