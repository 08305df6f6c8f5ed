// cond and while_loop: plain C++ control flow when ops run eagerly, functional If/While nodes
// (TensorFlow's) inside a GraphScope, so one model function works in both modes.
//
// Note [Functional control flow]: in a graph, each branch (or the loop's cond and body) is traced
// once into a function (graph/function.h) that the node names in a `func` attr; an exported
// GraphDef carries the functions in its library, as TensorFlow 2 writes them. Values a branch
// uses from outside become extra inputs of the node (Note [Function captures]). A node whose
// functions have no stateful ops is a StatelessIf / StatelessWhile, which passes may treat as
// pure. Both are differentiable (graph/control_flow_grads.cc: the gradient of an If is an If of
// the branches' gradients, Note [If gradients]; that of a While a loop running the body's
// gradient in reverse over values the forward pushed onto TensorLists, Note [While gradients]).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
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

// Options of while_loop, as tf.while_loop's arguments.
struct WhileOptions {
  // When >= 0, the loop stops after this many iterations even if cond_fn is still true (the
  // traced loop then carries an int32 counter as its first loop variable, as TensorFlow's).
  int64_t maximum_iterations = -1;
};

// vars = loop_vars; while (cond_fn(vars)) vars = body_fn(vars); returns vars. cond_fn returns a
// bool scalar; body_fn as many tensors as loop_vars, of the same dtypes. In a graph the loop
// variables' shapes may change between iterations: dims that do (e.g. a growing length) become
// unknown (-1) in the traced body and in the results.
std::vector<Tensor> while_loop(
    const std::function<Tensor(const std::vector<Tensor>&)>& cond_fn,
    const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& body_fn,
    std::vector<Tensor> loop_vars, OpSite site = {});
std::vector<Tensor> while_loop(
    const std::function<Tensor(const std::vector<Tensor>&)>& cond_fn,
    const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& body_fn,
    std::vector<Tensor> loop_vars, const WhileOptions& options, OpSite site = {});

struct FunctionTrace;
namespace graph_internal {
// A While (a StatelessWhile when neither function has a stateful node) over `loop_vars`, whose
// functions are the traces `cond` and `body` (their arguments are the loop variables); values they
// capture become further loop variables. Returns loop_vars.size() results; eagerly the op runs.
// The functions are named `name`_cond_N and `name`_body_N.
std::vector<Tensor> CallWhile(FunctionTrace cond, FunctionTrace body,
                              const std::vector<Tensor>& loop_vars, OpSite site,
                              const std::string& name = "while");
}  // namespace graph_internal

}  // namespace duet
