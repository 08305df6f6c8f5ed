#include "graph/freeze.h"

#include "absl/strings/str_cat.h"
#include "core/resource.h"
#include "graph/graph_ops.h"
#include "kernels/kernel_registry.h"
#include "ops/array/array_attrs.h"
#include "ops/op_registry.h"

namespace duet {
namespace {

bool IsCapturedVariable(const Node& node) {
  return kVarHandleOp.is(node.op()) && node.bound_value() != nullptr;
}

// The Const standing for a read of `variable`.
absl::StatusOr<NodeSpec> FrozenRead(const Node& read, const Node& handle) {
  VariableResource* variable = VariableOf(*handle.bound_value());
  Tensor value;
  {
    std::lock_guard<std::mutex> lock(variable->mu);
    value = variable->value;  // immutable: assignments swap in new tensors
  }
  if (!value.defined()) {
    return absl::FailedPreconditionError(
        absl::StrCat("variable '", variable->name, "' has no value to freeze"));
  }
  // A Const's value is a host tensor (GraphDefs serialize it); the node stays where the read ran,
  // and a plan copies the value there once.
  DUET_ASSIGN_OR_RETURN(const Tensor on_host, CopiedTo(value, Device::cpu()));
  NodeSpec spec = NodeSpec::Const(on_host);
  spec.name = read.name();
  spec.device = read.device();
  spec.location = read.location();
  return spec;
}

}  // namespace

absl::StatusOr<Graph> TryFreezeVariables(const Graph& graph) {
  Graph frozen;
  std::vector<const Node*> copy_of(graph.num_nodes(), nullptr);  // by old id; null: dropped
  for (const Node* node : graph.nodes()) {
    if (IsCapturedVariable(*node)) continue;
    NodeSpec spec;
    const bool reads_variable =
        kReadVariableOp.is(node->op()) && IsCapturedVariable(*node->inputs()[0].node);
    if (reads_variable) {
      DUET_ASSIGN_OR_RETURN(spec, FrozenRead(*node, *node->inputs()[0].node));
    } else {
      for (const NodeOutput& in : node->inputs()) {
        if (IsCapturedVariable(*in.node)) {
          return absl::InvalidArgumentError(
              absl::StrCat("cannot freeze node '", node->name(), "' (", node->op().name,
                           "): it uses variable '", in.node->name(), "' other than by reading it"));
        }
        spec.inputs.push_back(NodeOutput{copy_of[in.node->id()], in.index});
      }
      spec.op = &node->op();
      spec.name = node->name();
      spec.attrs = node->attrs();
      spec.device = node->device();
      spec.location = node->location();
      for (int i = 0; i < node->num_outputs(); ++i) {
        spec.output_dtypes.push_back(node->output_dtype(i));
        spec.output_shapes.push_back(node->output_shape(i));
      }
    }
    for (const Node* in : node->control_inputs()) {
      if (copy_of[in->id()] != nullptr) spec.control_inputs.push_back(copy_of[in->id()]);
    }
    DUET_ASSIGN_OR_RETURN(copy_of[node->id()], frozen.AddNode(std::move(spec)));
  }
  return frozen;
}

Graph freeze_variables(const Graph& graph) {
  absl::StatusOr<Graph> frozen = TryFreezeVariables(graph);
  if (!frozen.ok()) throw Error(frozen.status());
  return *std::move(frozen);
}

}  // namespace duet
