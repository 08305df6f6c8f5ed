// Function: a graph with arguments and results. cond branches and while_loop bodies are
// functions (If and While nodes name them in `func` attrs), and an exported GraphDef carries them
// as FunctionDefs in its library (graph/graph_def.h).
//
// Note [Functions]: a function body is an ordinary Graph whose arguments are Placeholder nodes
// and whose results are node outputs. Calling it runs a Plan of an optimized copy of the body
// (compiled once, on the first call: the pass pipeline keeps the arguments and results; feeds are
// the arguments, fetches the results, and every stateful node is a target, so a branch's
// assignments run even when no result depends on them). The body itself stays as traced: its
// gradient differentiates it (InlineFunction), and fused ops have no gradients. Tracing a C++
// callable into a function runs it in a GraphScope nested in the caller's (Note [Function
// captures]), so values from outside become extra arguments.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "graph/graph.h"
#include "graph/graph_body.h"
#include "graph/graph_context.h"
#include "graph/passes/optimize.h"
#include "graph/plan.h"
#include "ops/function_body.h"

namespace duet {

class Function final : public GraphBody {
 public:
  // `args` are Placeholder nodes of `body`, in argument order; `results` are outputs of `body`.
  // InvalidArgument for a body that no Plan can run (variables not passed as arguments).
  static absl::StatusOr<std::shared_ptr<const Function>> Create(std::string name, Graph body,
                                                                std::vector<const Node*> args,
                                                                std::vector<NodeOutput> results);

  const std::string& name() const override { return name_; }
  const std::vector<DType>& arg_dtypes() const override { return arg_dtypes_; }
  const std::vector<Shape>& arg_shapes() const override { return arg_shapes_; }
  const std::vector<DType>& result_dtypes() const override { return result_dtypes_; }
  const std::vector<Shape>& result_shapes() const override { return result_shapes_; }
  absl::StatusOr<std::vector<Tensor>> Call(absl::Span<const Tensor> args) const override;
  absl::StatusOr<std::vector<Tensor>> CallOwned(std::vector<Tensor> args) const override;

  const Graph& body() const override { return body_; }
  const std::vector<const Node*>& args() const override { return args_; }
  const std::vector<NodeOutput>& results() const override { return results_; }

  // What calls run (Note [Functions]): the optimized copy of the body, its arguments and results,
  // the pass report and the plan. Made by the first call (or this).
  struct Compiled {
    Graph graph;
    std::vector<const Node*> args;
    std::vector<NodeOutput> results;
    PassReport passes;
    std::unique_ptr<Plan> plan;
  };
  absl::StatusOr<const Compiled*> compiled() const;

  // What `make` returns for `key`, made once and kept as long as this function: functions derived
  // from this one, such as its gradients (Note [Call gradients] in call_grads.cc).
  std::shared_ptr<const void> Derived(const std::string& key,
                                      absl::FunctionRef<std::shared_ptr<const void>()> make) const;

 private:
  Function(std::string name, Graph body, std::vector<const Node*> args,
           std::vector<NodeOutput> results);
  absl::Status CheckArgs(absl::Span<const Tensor> args) const;

  std::string name_;
  Graph body_;
  std::vector<const Node*> args_;
  std::vector<NodeOutput> results_;
  std::vector<DType> arg_dtypes_, result_dtypes_;
  std::vector<Shape> arg_shapes_, result_shapes_;
  absl::StatusOr<std::unique_ptr<Compiled>> Compile() const;

  mutable std::once_flag compile_once_;
  mutable absl::Status compile_status_;
  mutable std::unique_ptr<Compiled> compiled_;
  mutable std::mutex derived_mu_;
  mutable absl::flat_hash_map<std::string, std::shared_ptr<const void>> derived_;  // derived_mu_
};

// `base` + "_" + a number, a name no other function of this process has (generated or imported,
// see ReserveFunctionName), so the functions of any graph can share one GraphDef library.
std::string UniqueFunctionName(absl::string_view base);
// Marks an imported function's name as taken.
void ReserveFunctionName(absl::string_view name);

// A callable traced into a function body (Note [Functions]), before its argument list is final:
// callers that trace several bodies for one node (cond's two branches) first unify their
// captures, see WithCaptures.
struct FunctionTrace {
  std::unique_ptr<Graph> body;
  std::vector<const Node*> args;  // the declared arguments
  std::vector<NodeOutput> results;
  std::vector<GraphContext::Capture> captures;
};

// The signature of one argument. Its Placeholder is placed where the argument lives (Note [Calls
// across devices] in ops/placement.h), so every spec names its device.
struct ArgSpec {
  ArgSpec(DType dtype, Shape shape, Device device)
      : dtype(dtype), shape(std::move(shape)), device(device) {}
  DType dtype;
  Shape shape;
  Device device;
};

// Traces `fn` in a GraphScope nested in `outer` (nullptr when called eagerly: then nothing is
// captured as an argument), with one Placeholder per `args` entry. Results may be any tensors
// (outer values and eager values are captured). Throws Error as op calls do.
FunctionTrace TraceFunction(GraphContext* outer, const std::vector<ArgSpec>& args,
                            absl::FunctionRef<std::vector<Tensor>(const std::vector<Tensor>&)> fn);

// The function of `trace` whose arguments are the declared ones followed by one per entry of
// `captures` (outer values, in this order; a superset of the trace's own captures, unused ones
// get an unused argument). With `pass_captures`, the captures are also appended to the results
// (a while_loop body passes them on to the next iteration).
std::shared_ptr<const Function> WithCaptures(FunctionTrace trace, absl::string_view name,
                                             const std::vector<NodeOutput>& captures,
                                             bool pass_captures = false);

// The outer values of several traces' captures, each once, in first-seen order.
std::vector<NodeOutput> UnionOfCaptures(const std::vector<const FunctionTrace*>& traces);

// Whether `function`'s body has a stateful node (its calls are then StatefulPartitionedCalls).
bool HasStatefulNodes(const Function& function);

// Whether repeating `node` in a gradient pass gives what the call being differentiated computed:
// pure nodes, variable reads (as long as nothing updated the variable in between), and If, While
// and call nodes whose functions hold only such nodes.
bool Repeatable(const Node& node);

// Adds the nodes `function`'s results depend on to the current context's graph (or runs them
// eagerly) op by op, with `args` for its arguments, and returns its results: what a gradient
// function differentiates, since the tape and gradients() see these ops. Only repeatable nodes
// may be needed: pure ones, variable reads, and calls of functions made of those; a result that
// depends on another stateful node (random numbers, a host function), or a function that both
// updates and reads a variable (a repeated read would see the update), throws Unimplemented.
std::vector<Tensor> InlineFunction(const Function& function, const std::vector<Tensor>& args);
// The same, also giving each body node's outputs in the caller (by body node id; empty for nodes
// the results do not need), so a caller can find the inlined copy of any body value.
std::vector<Tensor> InlineFunction(const Function& function, const std::vector<Tensor>& args,
                                   std::vector<OutputList>* values);

}  // namespace duet
