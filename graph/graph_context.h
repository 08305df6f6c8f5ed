// Graph building: inside a GraphScope, op functions add nodes to a Graph and return symbolic
// tensors instead of running.
#pragma once

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "graph/graph.h"
#include "ops/execution_context.h"

namespace duet {

// The execution context of graph mode: checks each op call like the eager dispatcher (signature,
// attrs, shape function, so errors surface at the user's line), then appends a node. Eager
// tensors used as inputs are captured once each: values as Const nodes, variable handles as
// VarHandleOp nodes bound to the same variable state.
//
// Note [Automatic control dependencies]: stateful ops that use the same resource (a variable's
// reads, assignments and updates) run in the order the program made them, as eagerly: each such
// node gets a control input on the previous one, so fetching a read also runs the assignments
// made before it.
//
// Note [Function captures]: a context with an `outer` context builds a function body (a cond
// branch, a while_loop body, see graph/function.h). Values from outside the body, symbolic
// tensors of enclosing graphs and variable handles, become arguments: a Placeholder in the body
// per value, recorded in captures() with the value's node output in the outer graph (captured
// there first if need be, so nesting works), which the calling node then takes as an input.
// Variables pass as resource arguments, so the calling node orders them with the outer graph's
// other uses of the variable and gradients reach them. Eager values still become Consts.
class GraphContext : public ExecutionContext {
 public:
  struct Capture {
    NodeOutput outer;   // the value in the outer context's graph
    const Node* inner;  // its Placeholder in this graph
  };

  explicit GraphContext(Graph& graph, GraphContext* outer = nullptr)
      : graph_(graph), outer_(outer) {}

  absl::Status Execute(OpCall& call, OutputList& outputs) override;
  bool executing_eagerly() const override { return false; }
  // gradients() (graph/gradients.h) of the targets through the recorded nodes, for a
  // GradientTape used in a graph (Note [Tapes in graphs]).
  absl::StatusOr<std::vector<Tensor>> SymbolicGradients(
      const std::vector<Tensor>& targets, const std::vector<Tensor>& sources,
      const std::vector<Tensor>& output_gradients, const std::vector<Tensor>& recorded) override;

  Graph& graph() const { return graph_; }
  // The node output a tensor stands for in this graph: its own for symbolic tensors of the graph;
  // for eager tensors (values, variable handles) the node capturing them, made if need be.
  absl::StatusOr<NodeOutput> Resolve(const Tensor& tensor) { return InputOf(tensor, OpSite()); }
  // The innermost GraphContext of this thread, or nullptr when ops run eagerly.
  static GraphContext* Current();
  // Note [Function captures]: the outer values this function body uses, in first-use order.
  const std::vector<Capture>& captures() const { return captures_; }
  // Note [Inlined aliases]: from now on `foreign` (an output of another graph's node, which this
  // graph holds a copy of) stands for `local` in this graph's ops.
  void AddAlias(const NodeOutput& foreign, const Tensor& local);

 private:
  friend class NameScope;
  friend class ControlDependencies;

  absl::StatusOr<NodeOutput> InputOf(const Tensor& tensor, OpSite site);
  absl::StatusOr<NodeOutput> CaptureValue(const Tensor& tensor, OpSite site);
  absl::StatusOr<NodeOutput> CaptureArgument(const Tensor& tensor, OpSite site);
  // The name for a new node: the scope prefix plus `base`, made unique.
  std::string NodeName(absl::string_view base) const;

  Graph& graph_;
  GraphContext* outer_;  // set while building a function body
  std::vector<Capture> captures_;
  std::string scope_prefix_;                 // "outer/inner/" inside NameScopes
  std::vector<const Node*> control_inputs_;  // from enclosing ControlDependencies
  // Eager tensors already captured, by TensorImpl (the tensor is kept alive by its node).
  absl::flat_hash_map<const TensorImpl*, NodeOutput> captured_;
  absl::flat_hash_map<std::pair<const Node*, int>, Tensor> aliases_;
  // The last stateful node that used each resource, by the resource's node id and output.
  absl::flat_hash_map<std::pair<int, int>, const Node*> last_resource_use_;
};

// Makes `graph` the target of op calls on this thread for the scope's lifetime.
class GraphScope {
 public:
  explicit GraphScope(Graph& graph) : context_(graph), scope_(&context_) {}
  // Builds a function body in `graph` within `outer` (Note [Function captures]; a null `outer`
  // builds it like any graph).
  GraphScope(Graph& graph, GraphContext* outer) : context_(graph, outer), scope_(&context_) {}

  GraphContext& context() { return context_; }
  GraphScope(const GraphScope&) = delete;
  GraphScope& operator=(const GraphScope&) = delete;

 private:
  GraphContext context_;
  ExecutionContext::Scope scope_;
};

// Prefixes the names of nodes made in its lifetime with "name/" (nested scopes nest). Does
// nothing when ops run eagerly.
class NameScope {
 public:
  explicit NameScope(absl::string_view name);
  ~NameScope();
  NameScope(const NameScope&) = delete;
  NameScope& operator=(const NameScope&) = delete;

 private:
  GraphContext* context_;
  size_t previous_size_ = 0;
};

// Nodes made in its lifetime run after the nodes of `tensors` (control inputs), e.g. a read
// after an assignment. Does nothing when ops run eagerly (they run in program order anyway).
class ControlDependencies {
 public:
  explicit ControlDependencies(const std::vector<Tensor>& tensors);
  ~ControlDependencies();
  ControlDependencies(const ControlDependencies&) = delete;
  ControlDependencies& operator=(const ControlDependencies&) = delete;

 private:
  GraphContext* context_;
  size_t previous_size_ = 0;
};

}  // namespace duet
