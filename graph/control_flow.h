// cond and while_loop: plain C++ control flow when ops run eagerly, functional If/While nodes
// (TensorFlow's) inside a GraphScope, so one model function works in both modes.
//
// Note [Functional control flow]: in a graph, each branch (or the loop's cond and body) is traced
// once into a function (graph/function.h) that the node names in a `func` attr; an exported
// GraphDef carries the functions in its library, as TensorFlow 2 writes them. Values a branch
// uses from outside become extra inputs of the node (Note [Function captures]). A node whose
// functions have no stateful ops is a StatelessIf / StatelessWhile, which passes may treat as
// pure. cond is differentiable (the gradient of an If is an If of the branches' gradients, see
// graph/control_flow_grads.cc); while_loop is not yet.
#pragma once

#include <functional>
#include <type_traits>
#include <vector>

#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet {

// `then_fn()` when `pred` (a bool scalar) is true, else `else_fn()`. Eagerly only one branch
// runs; in a graph both are traced (and must return as many tensors, of the same dtypes) and the
// node runs one per Session::run. Throws Error for a pred that is not a bool scalar.
std::vector<Tensor> cond(const Tensor& pred, const std::function<std::vector<Tensor>()>& then_fn,
                         const std::function<std::vector<Tensor>()>& else_fn, OpSite site = {});

// The same for branches that return one Tensor each.
template <typename Then, typename Else>
requires std::is_same_v<std::invoke_result_t<Then>, Tensor> &&
    std::is_same_v<std::invoke_result_t<Else>, Tensor>
        Tensor cond(const Tensor& pred, Then then_fn, Else else_fn, OpSite site = {}) {
  return cond(
      pred, [&] { return std::vector<Tensor>{then_fn()}; },
      [&] { return std::vector<Tensor>{else_fn()}; }, site)[0];
}

// vars = loop_vars; while (cond_fn(vars)) vars = body_fn(vars); returns vars. cond_fn returns a
// bool scalar; body_fn as many tensors as loop_vars, of the same dtypes. In a graph the loop
// variables' shapes may change between iterations: dims that do (e.g. a growing length) become
// unknown (-1) in the traced body and in the results.
std::vector<Tensor> while_loop(
    const std::function<Tensor(const std::vector<Tensor>&)>& cond_fn,
    const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& body_fn,
    std::vector<Tensor> loop_vars, OpSite site = {});

}  // namespace duet
