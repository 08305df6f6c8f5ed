// Symbolic gradients: the backward graph of a graph, built from the same registered gradient
// functions the eager tape runs (ops/gradient.h), so there is one gradient per op.
#pragma once

#include <vector>

#include "core/tensor.h"
#include "eager/gradient_tape.h"

namespace duet {

// Inside a GraphScope: adds the nodes computing d(sum of ys)/d(each x) (under the name scope
// "gradients") and returns one symbolic tensor per x, undefined where no y depends on x. xs are
// symbolic tensors of the graph or Variables used in it. `grad_ys` (one per y, each of its y's
// shape) replace the implicit ones, applying the chain rule with upstream gradients. Throws Error
// outside a GraphScope, for tensors of another graph, and for ops without a gradient.
std::vector<Tensor> gradients(const std::vector<Tensor>& ys, const std::vector<GradientSource>& xs,
                              const std::vector<Tensor>& grad_ys = {});

namespace graph_internal {
// As gradients(), differentiating only the nodes `through` marks, by node id (one entry per node
// of the graph; the others are leaves), or every node when it is null. GradientTape's gradients
// while a graph is built pass the nodes the tape recorded (Note [Tapes in graphs]).
std::vector<Tensor> GradientsThrough(const std::vector<Tensor>& ys,
                                     const std::vector<GradientSource>& xs,
                                     const std::vector<Tensor>& grad_ys,
                                     const std::vector<bool>* through);
}  // namespace graph_internal

}  // namespace duet
