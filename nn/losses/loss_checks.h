// Argument checks the losses (and the metrics, nn/metrics/) share: dtypes, ranks and shapes, with
// errors that name the loss or metric.
#pragma once

#include <string>
#include <utility>

#include "absl/strings/string_view.h"
#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet::losses::internal {

// `site` without its node name: the ops inside a loss take the caller's line, and only the loss's
// last op takes the name (reduce_loss), so the name the caller asked for is the result's node.
OpSite Unnamed(OpSite site);

// Throws Error(InvalidArgument) "<loss>: <message> [labels: <dtype> <shape>, predictions: ...]
// (at <file:line>)", the form op errors take (AnnotateOpError in ops/op_call.cc).
[[noreturn]] void ThrowLossError(absl::string_view loss, absl::string_view message,
                                 const Tensor& labels, const Tensor& predictions, OpSite site);

// Requires defined tensors and floating-point predictions of rank >= 1.
void CheckPredictions(absl::string_view loss, const Tensor& labels, const Tensor& predictions,
                      OpSite site);

// CheckPredictions, and numeric or bool labels; returns the labels cast to the predictions' dtype.
Tensor CastLabels(absl::string_view loss, const Tensor& labels, const Tensor& predictions,
                  OpSite site);

// Keras' squeeze_or_expand_to_same_rank, in place: when one rank exceeds the other by one and its
// last dim is 1, squeezes that dim (or, when the other is rank 1, expands the other instead).
// Tensors of unknown rank are left alone.
void SqueezeOrExpandToSameRank(Tensor& a, Tensor& b, OpSite site);

// SqueezeOrExpandToSameRank, then requires the shapes to match (unknown dims match anything).
// Returns {labels, predictions}.
std::pair<Tensor, Tensor> MatchShapes(absl::string_view loss, const Tensor& labels,
                                      const Tensor& predictions, OpSite site);

// CastLabels, then MatchShapes: the labels and predictions of the elementwise losses.
std::pair<Tensor, Tensor> CastAndMatch(absl::string_view loss, const Tensor& labels,
                                       const Tensor& predictions, OpSite site);

// The number of classes: the last dim of `t` when known, else read at run time; as `dtype`.
Tensor LastDim(const Tensor& t, DType dtype, OpSite site);

}  // namespace duet::losses::internal
