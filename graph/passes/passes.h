// The passes of the pipeline, one per file in graph/passes/. Each returns true when it changed
// the graph. The pass manager (pass_manager.cc) sorts the graph topologically before each pass,
// so a pass may visit nodes() in order and see producers before consumers.
#pragma once

#include "absl/status/statusor.h"
#include "graph/passes/pass_context.h"

namespace duet {

// "inline_functions": replaces calls of graph functions (nested duet::functions) by their nodes.
absl::StatusOr<bool> InlineFunctions(Graph& graph, PassContext& context);
// "merge_loop_twins": a forward While and the accumulating twin its gradient runs -> the twin
// alone (Note [Merging loop twins]).
absl::StatusOr<bool> MergeLoopTwins(Graph& graph, PassContext& context);
// "prune": removes nodes that no kept node needs (data or control), except stateful ones.
absl::StatusOr<bool> Prune(Graph& graph, PassContext& context);
// "constant_folding": evaluates nodes whose inputs are constants (or, for Shape, Size, Rank,
// ZerosLike and OnesLike, whose input shapes are static) with the CPU kernels.
absl::StatusOr<bool> FoldConstants(Graph& graph, PassContext& context);
// "convert_layout": channels-first image ops -> their channels-last twins between Transposes,
// Transposes sunk below elementwise ops (Note [Channels-first] in ops/channels_first.cc).
absl::StatusOr<bool> ConvertLayout(Graph& graph, PassContext& context);
// "simplify": algebraic identities (x*1, x+0, --x, reshape of reshape, ...); docs/passes.md.
absl::StatusOr<bool> Simplify(Graph& graph, PassContext& context);
// "cse": merges nodes computing the same op on the same inputs with the same attrs.
absl::StatusOr<bool> EliminateCommonSubexpressions(Graph& graph, PassContext& context);
// "fold_batch_norm": inference FusedBatchNormV3 with constant statistics after a Conv2D with a
// constant filter -> Conv2D(folded filter) + BiasAdd(folded bias).
absl::StatusOr<bool> FoldBatchNorm(Graph& graph, PassContext& context);
// "fold_scale_offset": Mul/AddV2/Sub of a constant per-channel vector after a Conv2D,
// DepthwiseConv2dNative or MatMul with a constant filter (Keras' frozen batch norm) -> the
// contraction with a scaled filter and a BiasAdd.
absl::StatusOr<bool> FoldScaleOffset(Graph& graph, PassContext& context);
// "fuse_bias_activation": MatMul/Conv2D/DepthwiseConv2dNative + bias + optional activation ->
// _FusedMatMul/_FusedConv2D/_FusedDepthwiseConv2dNative.
absl::StatusOr<bool> FuseBiasActivation(Graph& graph, PassContext& context);
// "fuse_softmax_cross_entropy": hand-written -sum(y * log_softmax(z), -1) (or with log(softmax(z)))
// -> SoftmaxCrossEntropyWithLogits(z, y), whose max-shifted kernel stays finite for large logits.
absl::StatusOr<bool> FuseSoftmaxCrossEntropy(Graph& graph, PassContext& context);
// "fuse_elementwise": regions of elementwise ops (scalars and same-shape tensors) ->
// _FusedElementwise, one pass over memory.
absl::StatusOr<bool> FuseElementwise(Graph& graph, PassContext& context);
// "fuse_gradient_update": ResourceApplyGradientDescent of a MatMul that only it reads ->
// _ResourceApplyMatMulGradientDescent, which accumulates the product into the variable.
absl::StatusOr<bool> FuseGradientUpdate(Graph& graph, PassContext& context);

}  // namespace duet
