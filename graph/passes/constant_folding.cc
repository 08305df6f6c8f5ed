// Constant folding: a pure node whose inputs are all constants runs once, now, with its
// registered CPU kernel, and becomes a Const. So does a node that reads only its input's shape
// (Shape, Size, Rank, ZerosLike, OnesLike) when that shape is static.
//
// Never folded: stateful ops, random ops (seeded stateless ones too: a user who reseeds expects
// new numbers), Placeholders, ops calling functions, ops with resource inputs or outputs, and
// results larger than PassOptions::max_constant_bytes (a folded constant lives in the graph).
// A kernel error leaves the node alone: running the graph reports it where the user expects.
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "graph/graph_ops.h"
#include "graph/passes/passes.h"
#include "graph/passes/rewrite.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

bool NeverFolded(const Node& node) {
  const OpDef& op = node.op();
  if (op.stateful || kConstOp.is(op) || kPlaceholderOp.is(op) ||
      absl::StrContains(op.name, "Random") || node.num_outputs() == 0) {
    return true;
  }
  for (const AttrValue& attr : node.attrs()) {
    if (std::holds_alternative<FuncAttr>(attr)) return true;
  }
  for (int i = 0; i < node.num_outputs(); ++i) {
    if (IsObjectDType(node.output_dtype(i))) return true;  // Note [Object dtypes]
  }
  return false;
}

// The input values the kernel needs, or nullopt when some input is not known.
std::optional<TensorList> KnownInputs(const Node& node) {
  const bool shapes_only = node.op().reads_only_input_shapes;
  TensorList inputs;
  for (const NodeOutput& in : node.inputs()) {
    if (const Tensor* value = ConstValue(in); value != nullptr && value->has_value()) {
      inputs.push_back(*value);
      continue;
    }
    const Shape& shape = in.node->output_shape(in.index);
    if (!shapes_only || !shape.is_fully_defined()) return std::nullopt;
    inputs.push_back(ShapeOnly(in.node->output_dtype(in.index), shape));
  }
  return inputs;
}

// Runs the node's CPU kernel on `inputs`, which must be host values.
absl::StatusOr<OutputList> Evaluate(const Node& node, TensorList inputs, int64_t max_bytes) {
  OpCall call(&node.op(), std::move(inputs), OpSite(node.name(), node.location()));
  call.attrs = node.attrs();
  ShapeContext shapes(call);
  DUET_RETURN_IF_ERROR(InferShapes(shapes));
  int64_t bytes = 0;
  for (const ShapeContext::Output& out : shapes.outputs()) {
    if (!out.shape.is_fully_defined()) return absl::FailedPreconditionError("unknown shape");
    bytes += out.shape.num_elements() * DTypeSize(out.dtype);
  }
  if (bytes > max_bytes) return absl::ResourceExhaustedError("too large to fold");
  const KernelDef* kernel = FindKernel(node.op(), DeviceType::kCpu, DispatchDType(call));
  if (kernel == nullptr) return absl::UnimplementedError("no CPU kernel");
  // A constant captured from another device (a GPU tensor) is not folded on the host.
  DUET_RETURN_IF_ERROR(CheckInputDevices(call, Device::cpu(), HostInputs(call)));
  OutputList outputs(shapes.num_outputs());
  if (!kernel->allocates_outputs) {
    for (int i = 0; i < shapes.num_outputs(); ++i) {
      DUET_ASSIGN_OR_RETURN(outputs[i],
                            Tensor::TryEmpty(shapes.output(i).dtype, shapes.output(i).shape));
    }
  }
  KernelContext ctx(call, outputs, Device::cpu());
  DUET_RETURN_IF_ERROR(kernel->fn(ctx));
  for (const Tensor& out : outputs) {
    if (!out.has_value()) return absl::InternalError("the kernel made no value");
  }
  return outputs;
}

// Puts the folded values in the graph: the node itself becomes the Const when it has one output
// (keeping its name, consumers and control inputs); otherwise each used output gets its own.
absl::Status Replace(Graph& graph, const Node& node, const OutputList& values) {
  if (values.size() == 1) {
    NodeSpec spec = ConstSpec(values[0], node);
    spec.control_inputs.assign(node.control_inputs().begin(), node.control_inputs().end());
    return graph.Rewrite(&node, std::move(spec));
  }
  for (int i = 0; i < static_cast<int>(values.size()); ++i) {
    NodeSpec spec = ConstSpec(values[i], node);
    spec.control_inputs.assign(node.control_inputs().begin(), node.control_inputs().end());
    DUET_ASSIGN_OR_RETURN(const Node* constant,
                          AddNamed(graph, std::move(spec), absl::StrCat(node.name(), "/folded")));
    graph.ReplaceUses({&node, i}, {constant, 0});
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> FoldConstants(Graph& graph, PassContext& context) {
  bool changed = false;
  // A copy of the list: Replace may add nodes.
  const std::vector<Node*> nodes(graph.nodes().begin(), graph.nodes().end());
  for (const Node* node : nodes) {
    if (NeverFolded(*node)) continue;
    if (node->num_outputs() > 1 && context.Keeps(node)) continue;  // it would still run
    std::optional<TensorList> inputs = KnownInputs(*node);
    if (!inputs) continue;
    absl::StatusOr<OutputList> values =
        Evaluate(*node, *std::move(inputs), context.options().max_constant_bytes);
    if (!values.ok()) {
      if (values.status().code() == absl::StatusCode::kResourceExhausted) {
        context.Count("constant_folding.too_large");
      }
      continue;
    }
    context.Count(node->op().reads_only_input_shapes ? "constant_folding.shapes"
                                                     : "constant_folding.folded");
    DUET_RETURN_IF_ERROR(Replace(graph, *node, *values));
    changed = true;
  }
  return changed;
}

}  // namespace duet
