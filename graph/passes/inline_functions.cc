// "inline_functions": replaces a call node (PartitionedCall, StatefulPartitionedCall) of a graph
// function by the function's nodes, so the other passes optimize across the call: a nested
// duet::function's ops fold, merge and fuse with its caller's, and the plan runs them without a
// second plan per call.
//
// Order is kept: every inlined node gets the call's control inputs, and nodes that depended on
// the call through a control edge depend on a NoOp that waits for every inlined node. A call the
// session fetches or optimize() keeps stays (its outputs must keep the name), and so do calls of
// functions without a graph.
#include "absl/strings/str_cat.h"
#include "graph/graph_body.h"
#include "graph/graph_ops.h"
#include "graph/passes/passes.h"
#include "graph/passes/rewrite.h"
#include "ops/control_flow/control_flow_attrs.h"
#include "ops/op_registry.h"

namespace duet {
namespace {

const GraphBody* CalledGraphFunction(const Node& node) {
  const OpDef& op = node.op();
  if (!kPartitionedCallOp.is(op) && !kStatefulPartitionedCallOp.is(op)) return nullptr;
  const auto& f = node.attr(CallAttrs::kF);
  return dynamic_cast<const GraphBody*>(f.body.get());
}

// Copies `function`'s body into `graph` in place of `call`: per body node, the node output it
// became (arguments become the call's inputs).
absl::Status InlineCall(Graph& graph, const Node& call, const GraphBody& function,
                        PassContext& context) {
  const Graph& body = function.body();
  std::vector<std::vector<NodeOutput>> outputs(body.num_nodes());
  for (size_t i = 0; i < function.args().size(); ++i) {
    outputs[function.args()[i]->id()] = {call.inputs()[i]};
  }
  std::vector<const Node*> inlined;
  for (const Node* node : body.nodes()) {  // ids are a topological order
    if (!outputs[node->id()].empty()) continue;
    if (kPlaceholderOp.is(node->op())) {
      return absl::InternalError(absl::StrCat("function '", function.name(), "': placeholder '",
                                              node->name(), "' is not an argument"));
    }
    NodeSpec spec;
    spec.op = &node->op();
    spec.name = graph.UniqueName(absl::StrCat(call.name(), "/", node->name()));
    spec.attrs = node->attrs();
    for (const NodeOutput& in : node->inputs())
      spec.inputs.push_back(outputs[in.node->id()][in.index]);
    spec.control_inputs.assign(call.control_inputs().begin(), call.control_inputs().end());
    for (const Node* in : node->control_inputs()) {
      for (const NodeOutput& out : outputs[in->id()]) spec.control_inputs.push_back(out.node);
    }
    spec.device = node->device();  // where the call would run it (Note [Calls across devices])
    spec.location = node->location();
    for (int k = 0; k < node->num_outputs(); ++k) {
      spec.output_dtypes.push_back(node->output_dtype(k));
      spec.output_shapes.push_back(node->output_shape(k));
    }
    if (const Tensor* bound = node->bound_value()) spec.bound_value = *bound;
    DUET_ASSIGN_OR_RETURN(const Node* copy, graph.AddNode(std::move(spec)));
    for (int k = 0; k < copy->num_outputs(); ++k) outputs[node->id()].push_back({copy, k});
    if (copy->num_outputs() == 0) outputs[node->id()].push_back({copy, -1});
    inlined.push_back(copy);
  }
  for (size_t k = 0; k < function.results().size(); ++k) {
    const NodeOutput& result = function.results()[k];
    graph.ReplaceUses({&call, static_cast<int>(k)}, outputs[result.node->id()][result.index]);
  }
  UseIndex uses(graph);
  if (!uses.control_dependents(&call).empty()) {
    DUET_ASSIGN_OR_RETURN(NodeSpec done, SpecFor(kNoOpOp, {}, call));
    done.control_inputs = inlined;
    DUET_ASSIGN_OR_RETURN(const Node* noop,
                          AddNamed(graph, std::move(done), call.name() + "/done"));
    MoveControlDependents(graph, uses, &call, noop);
  }
  DUET_RETURN_IF_ERROR(graph.RemoveNodes({&call}));
  context.Count("inline_functions.calls");
  context.Count("inline_functions.nodes", static_cast<int64_t>(inlined.size()));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> InlineFunctions(Graph& graph, PassContext& context) {
  bool changed = false;
  const std::vector<const Node*> nodes(graph.nodes().begin(), graph.nodes().end());
  for (const Node* node : nodes) {
    const GraphBody* function = CalledGraphFunction(*node);
    if (function == nullptr) continue;
    if (context.Keeps(node)) {
      context.Missed("inline_functions", *node, "its outputs are fetched or kept");
      continue;
    }
    DUET_RETURN_IF_ERROR(InlineCall(graph, *node, *function, context));
    changed = true;
  }
  return changed;
}

}  // namespace duet
