// Function transformations over GradientTape: gradients_function, value_and_gradients_function
// and custom_gradient (API.md, "Automatic differentiation").
#pragma once

#include <array>
#include <tuple>
#include <utility>
#include <vector>

#include "core/constant.h"
#include "eager/gradient_tape.h"
#include "ops/control_flow/control_flow_ops.h"
#include "ops/execution_context.h"

namespace duet {
namespace gradients_internal {

// Arguments of a transformed function become tensors: grad_fn(3.f) works like grad_fn(x).
inline Tensor AsTensor(const Tensor& t) { return t; }
template <typename S>
requires std::is_arithmetic_v<S> Tensor AsTensor(S value) { return constant(value); }

// Runs f on fresh handles of the arguments under a tape that watches them; returns f's value
// and the gradients of it with respect to each argument.
template <typename F, typename... Args>
std::pair<Tensor, std::vector<Tensor>> ValueAndGradients(const F& f, const Args&... args) {
  const std::array<Tensor, sizeof...(Args)> xs{AsTensor(args)...};
  GradientTape tape;
  for (const Tensor& x : xs) tape.watch(x);
  Tensor value = std::apply(f, xs);
  std::vector<GradientSource> sources(xs.begin(), xs.end());
  std::vector<Tensor> grads = tape.gradient(value, sources);
  return {std::move(value), std::move(grads)};
}

}  // namespace gradients_internal

// f: (Tensor...) -> Tensor. Returns a function of the same arguments (tensors or C++ numbers)
// that returns d f / d argument, one per argument (undefined where f does not depend on it).
// Transformations nest: gradients_function(gradients_function(f)...) is the second derivative.
template <typename F>
auto gradients_function(F f) {
  return [f](const auto&... args) -> std::vector<Tensor> {
    return gradients_internal::ValueAndGradients(f, args...).second;
  };
}

// As gradients_function, returning {f(args...), {gradients}}.
template <typename F>
auto value_and_gradients_function(F f) {
  return [f](const auto&... args) -> std::pair<Tensor, std::vector<Tensor>> {
    return gradients_internal::ValueAndGradients(f, args...);
  };
}

// f: (Tensor...) -> {value, backward} where backward(dy) returns one gradient per argument.
// The returned function computes the value without recording f's internals and passes it through
// a DuetCustomGradient op (custom_gradient_op) whose gradient is backward: tapes (nested ones
// too) record that one op, and in a graph (a GraphScope, a traced duet::function) gradients()
// calls backward in place of differentiating f's nodes.
template <typename F>
auto custom_gradient(F f) {
  return [f](const auto&... args) -> Tensor {
    const std::array<Tensor, sizeof...(args)> inputs{gradients_internal::AsTensor(args)...};
    auto result = [&] {
      StopRecording pause;
      return std::apply(f, inputs);
    }();
    return custom_gradient_op(result.first, std::vector<Tensor>(inputs.begin(), inputs.end()),
                              [backward = std::move(result.second)](const Tensor& dy) {
                                return std::vector<Tensor>(backward(dy));
                              });
  };
}

}  // namespace duet
