// duet::function: a C++ callable over tensors that traces itself into a graph on the first call
// per signature and then runs the optimized graph (API.md, "Tracing"; docs/tracing.md is the
// guide).
//
//   auto step = duet::function([&](Tensor x, Tensor y) { return loss_fn(model(x), y); });
//   Tensor loss = step(images, labels);   // traces, optimizes, compiles, runs
//   loss = step(images, labels);          // runs the compiled plan
//   step.trace_count();  step.retrace_reasons();
//
// Arguments may be Tensors, std::vector<Tensor>s, Variables and plain values (integers, floating
// point numbers, bool, std::string); results a Tensor, a std::vector<Tensor>, a std::tuple or
// std::pair of Tensors, or nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/functional/function_ref.h"
#include "core/tensor.h"
#include "eager/variable.h"
#include "graph/graph.h"
#include "ops/execution_context.h"
#include "proto/graph.pb.h"

namespace duet {

// The dtype and (partial: -1 for unknown dims) shape of a tensor argument.
struct TensorSpec {
  DType dtype = kFloat32;
  Shape shape;
  Device device;  // a call with tensors on another device traces again
};

struct FunctionOptions {
  // Names the traced functions ("<name>_<n>") and the messages.
  std::string name = "function";
  // One spec per tensor (each element of a std::vector<Tensor> argument counts): the function
  // traces once, for these, and rejects tensors that do not match.
  std::optional<std::vector<TensorSpec>> input_signature;
  // A retrace whose tensors differ from an earlier trace's only in dims traces with those dims
  // unknown, so that further sizes reuse it.
  bool relax_shapes = true;
  // A warning on stderr each time the trace count passes a multiple of this (0: never).
  int warn_after_traces = 5;
  // Traced signatures kept; the least recently used is dropped beyond this.
  int cache_size = 32;
  // Debugging: every call also traces the callable again and compares that graph with the cached
  // trace; a difference means host code read a value that has changed since the trace (a C++
  // variable, an eager tensor rebound), which the cached graph does not see. Each difference is a
  // warning on stderr and a line of host_value_changes(). Costs a trace per call.
  bool check_host_values = false;
};

// The debugging switch: while on, every duet::function runs its callable eagerly (no tracing).
void run_functions_eagerly(bool eagerly);
bool functions_run_eagerly();

class Function;

namespace function_internal {

// An argument, type-erased: what the signature key is made of.
using ArgValue =
    std::variant<Tensor, std::vector<Tensor>, Variable, int64_t, double, bool, std::string>;
// Calls the user's callable with the given arguments (placeholders for tensors) and returns
// its results, flattened.
using TraceFn = absl::FunctionRef<std::vector<Tensor>(const std::vector<ArgValue>&)>;

// The signature cache and the tracing machinery behind TracedFunction (traced_function.cc).
class Tracer {
 public:
  explicit Tracer(FunctionOptions options);
  ~Tracer();

  // Runs the traced function of `args`' signature, tracing it first if need be.
  std::vector<Tensor> Call(const std::vector<ArgValue>& args, TraceFn trace);
  // While a graph is built (another function tracing, a GraphScope): traces a function for this
  // call, whose captures are the enclosing graph's values, and adds a call node of it.
  std::vector<Tensor> CallInGraph(const std::vector<ArgValue>& args, TraceFn trace);
  // The optimized graph of `args`' signature, with variables as VarHandleOps or (freeze) Consts.
  tensorflow::GraphDef GraphDefOf(const std::vector<ArgValue>& args, TraceFn trace, bool freeze);
  // Writes that graph, frozen, to `path` (binary GraphDef; text when it ends in ".pbtxt").
  void ExportGraph(const std::string& path, const std::vector<ArgValue>& args, TraceFn trace);
  // The graph GraphDefOf exports, its variables VarHandleOps bound to their state.
  Graph ExportedGraph(const std::vector<ArgValue>& args, TraceFn trace, bool freeze);

  int trace_count() const;
  std::vector<std::string> retrace_reasons() const;
  std::vector<std::string> host_value_changes() const;
  const FunctionOptions& options() const { return options_; }

 private:
  struct Entry;
  struct State;
  OpSite CallSite() const;
  std::shared_ptr<Entry> Lookup(const std::vector<ArgValue>& args, TraceFn trace);
  void CheckHostValues(Entry& entry, const std::vector<ArgValue>& args, TraceFn trace);

  FunctionOptions options_;
  std::unique_ptr<State> state_;
};

// While alive, `tracer`'s callable runs on this thread; a second one for the same tracer (a
// function calling itself) throws.
class RecursionGuard {
 public:
  explicit RecursionGuard(const Tracer& tracer, const std::string& name);
  ~RecursionGuard();
  RecursionGuard(const RecursionGuard&) = delete;
  RecursionGuard& operator=(const RecursionGuard&) = delete;
};

// Whether calls should run the callable directly, eagerly: run_functions_eagerly is on.
bool CallsRunDirectly();

template <typename A>
ArgValue ToArg(const A& a) {
  using D = std::decay_t<A>;
  if constexpr (std::is_same_v<D, Tensor> || std::is_same_v<D, std::vector<Tensor>> ||
                std::is_same_v<D, Variable> || std::is_same_v<D, bool>) {
    return a;
  } else if constexpr (std::is_integral_v<D>) {
    return static_cast<int64_t>(a);
  } else if constexpr (std::is_floating_point_v<D>) {
    return static_cast<double>(a);
  } else if constexpr (std::is_convertible_v<D, std::string>) {
    return std::string(a);
  } else {
    static_assert(sizeof(D) == 0,
                  "duet::function arguments are Tensor, std::vector<Tensor>, Variable, integers, "
                  "floating point numbers, bool or strings");
  }
}

// The argument the callable gets for parameter type A from a (possibly symbolic) ArgValue.
template <typename A>
decltype(auto) FromArg(const ArgValue& v) {
  using D = std::decay_t<A>;
  if constexpr (std::is_same_v<D, Tensor> || std::is_same_v<D, std::vector<Tensor>> ||
                std::is_same_v<D, Variable> || std::is_same_v<D, bool>) {
    return std::get<D>(v);
  } else if constexpr (std::is_integral_v<D>) {
    return static_cast<D>(std::get<int64_t>(v));
  } else if constexpr (std::is_floating_point_v<D>) {
    return static_cast<D>(std::get<double>(v));
  } else if constexpr (std::is_same_v<D, const char*> || std::is_same_v<D, char*>) {
    return std::get<std::string>(v).c_str();
  } else {
    return D(std::get<std::string>(v));
  }
}

// Results: flattened to tensors after tracing, rebuilt from them after each call.
template <typename R>
struct Results;
template <>
struct Results<Tensor> {
  static std::vector<Tensor> Flatten(const Tensor& t) { return {t}; }
  static Tensor Build(std::vector<Tensor> v) { return std::move(v.at(0)); }
};
template <>
struct Results<std::vector<Tensor>> {
  static std::vector<Tensor> Flatten(std::vector<Tensor> v) { return v; }
  static std::vector<Tensor> Build(std::vector<Tensor> v) { return v; }
};
template <typename... Ts>
struct Results<std::tuple<Ts...>> {
  static_assert((std::is_same_v<Ts, Tensor> && ...), "tuples of Tensors only");
  static std::vector<Tensor> Flatten(const std::tuple<Ts...>& t) {
    return std::apply([](const auto&... x) { return std::vector<Tensor>{x...}; }, t);
  }
  static std::tuple<Ts...> Build(std::vector<Tensor> v) {
    return BuildAt(v, std::index_sequence_for<Ts...>{});
  }
  template <size_t... I>
  static std::tuple<Ts...> BuildAt(std::vector<Tensor>& v, std::index_sequence<I...>) {
    return {std::move(v.at(I))...};
  }
};
template <typename A, typename B>
struct Results<std::pair<A, B>> {
  static_assert(std::is_same_v<A, Tensor> && std::is_same_v<B, Tensor>, "pairs of Tensors only");
  static std::vector<Tensor> Flatten(const std::pair<A, B>& p) { return {p.first, p.second}; }
  static std::pair<A, B> Build(std::vector<Tensor> v) {
    return {std::move(v.at(0)), std::move(v.at(1))};
  }
};

}  // namespace function_internal

// What duet::function returns: call it like the callable. Copies share the traced functions.
template <typename F>
class TracedFunction {
 public:
  TracedFunction(F f, FunctionOptions options)
      : f_(std::move(f)),
        tracer_(std::make_shared<function_internal::Tracer>(std::move(options))) {}

  template <typename... Args>
  auto operator()(Args&&... args) const {
    using R = std::decay_t<std::invoke_result_t<const F&, Args&&...>>;
    if (function_internal::CallsRunDirectly()) {
      function_internal::RecursionGuard guard(*tracer_, tracer_->options().name);
      return f_(std::forward<Args>(args)...);
    }
    const std::vector<function_internal::ArgValue> values{function_internal::ToArg(args)...};
    std::vector<Tensor> results = executing_eagerly()
                                      ? tracer_->Call(values, Tracing<R, Args...>())
                                      : tracer_->CallInGraph(values, Tracing<R, Args...>());
    if constexpr (!std::is_void_v<R>) {
      return function_internal::Results<R>::Build(std::move(results));
    }
  }

  // How many times it traced; one line per retrace saying which argument changed and how.
  int trace_count() const { return tracer_->trace_count(); }
  std::vector<std::string> retrace_reasons() const { return tracer_->retrace_reasons(); }
  // With FunctionOptions::check_host_values: one line per call whose fresh trace differed from
  // the cached one, naming the first differing node and its source line.
  std::vector<std::string> host_value_changes() const { return tracer_->host_value_changes(); }

  // The optimized GraphDef of these arguments' signature (tracing it if need be; without duet's
  // own _FusedElementwise, so TensorFlow can run it): Placeholders
  // "arg0", "arg1", ... per tensor, Identity nodes "output_0", ... per result, variables as
  // VarHandleOps or, with `freeze`, Consts of their current values.
  template <typename... Args>
  tensorflow::GraphDef graph_def(const Args&... args) const {
    return GraphDefOf(/*freeze=*/false, args...);
  }
  template <typename... Args>
  tensorflow::GraphDef frozen_graph_def(const Args&... args) const {
    return GraphDefOf(/*freeze=*/true, args...);
  }
  // The graph graph_def(args...) exports, its VarHandleOps bound to the variables' state (what
  // saved_model::save writes with the variables' values).
  template <typename... Args>
  Graph exported_graph(const Args&... args) const {
    using R = std::decay_t<std::invoke_result_t<const F&, const Args&...>>;
    const std::vector<function_internal::ArgValue> values{function_internal::ToArg(args)...};
    return tracer_->ExportedGraph(values, Tracing<R, const Args&...>(), /*freeze=*/false);
  }
  // Writes frozen_graph_def(args...) to `path` (binary; text when it ends in ".pbtxt"): a file
  // that runs on its own, in `duet run` or TensorFlow. Throws Error when it cannot be written.
  template <typename... Args>
  void export_graph(const std::string& path, const Args&... args) const {
    using R = std::decay_t<std::invoke_result_t<const F&, const Args&...>>;
    const std::vector<function_internal::ArgValue> values{function_internal::ToArg(args)...};
    tracer_->ExportGraph(path, values, Tracing<R, const Args&...>());
  }

 private:
  template <typename... Args>
  tensorflow::GraphDef GraphDefOf(bool freeze, const Args&... args) const {
    using R = std::decay_t<std::invoke_result_t<const F&, const Args&...>>;
    const std::vector<function_internal::ArgValue> values{function_internal::ToArg(args)...};
    return tracer_->GraphDefOf(values, Tracing<R, const Args&...>(), freeze);
  }

  // The callable as a TraceFn: runs f_ on the (symbolic) arguments and flattens its results.
  template <typename R, typename... Args>
  auto Tracing() const {
    return [this](const std::vector<function_internal::ArgValue>& symbolic) {
      function_internal::RecursionGuard guard(*tracer_, tracer_->options().name);
      return Invoke<R, Args...>(symbolic, std::index_sequence_for<Args...>{});
    };
  }
  template <typename R, typename... Args, size_t... I>
  std::vector<Tensor> Invoke(const std::vector<function_internal::ArgValue>& symbolic,
                             std::index_sequence<I...>) const {
    if constexpr (std::is_void_v<R>) {
      f_(function_internal::FromArg<Args>(symbolic[I])...);
      return {};
    } else {
      return function_internal::Results<R>::Flatten(
          f_(function_internal::FromArg<Args>(symbolic[I])...));
    }
  }

  F f_;
  std::shared_ptr<function_internal::Tracer> tracer_;
};

// Wraps `f` so that it traces into a graph per signature and runs that graph (see above).
template <typename F>
TracedFunction<F> function(F f, FunctionOptions options = {}) {
  return TracedFunction<F>(std::move(f), std::move(options));
}

}  // namespace duet
