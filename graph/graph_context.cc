#include "graph/graph_context.h"

#include "absl/strings/str_cat.h"
#include "core/resource.h"
#include "eager/device_scope.h"
#include "eager/gradient_tape.h"
#include "graph/gradients.h"
#include "graph/graph_ops.h"
#include "ops/array/array_attrs.h"
#include "ops/op_registry.h"
#include "ops/placement.h"
#include "ops/shape_context.h"
#include "ops/state/state_attrs.h"

namespace duet {
namespace {

// The node spec of a captured eager tensor: a Const holding a value, or a VarHandleOp bound to a
// variable's state (TensorFlow's ops, so an exported graph names the variable).
NodeSpec CaptureSpec(const Tensor& tensor) {
  NodeSpec spec;
  if (tensor.dtype() == kResource) {
    spec.bound_value = tensor;
    const VariableResource* variable = VariableOf(tensor);
    spec.op = &kVarHandleOp.def();
    spec.attrs = spec.op->default_attrs;
    spec.set(VarHandleAttrs::kSharedName, variable->name);
    spec.set(VarHandleAttrs::kDtype, variable->dtype);
    spec.set(VarHandleAttrs::kShape, variable->shape);
    spec.output_dtypes = {tensor.dtype()};
    spec.output_shapes = {tensor.shape()};
  } else {
    spec = NodeSpec::Const(tensor);
  }
  if (!tensor.device().is_host()) spec.device = tensor.device().tf_name();  // where it lives
  return spec;
}

}  // namespace

absl::StatusOr<std::vector<Tensor>> GraphContext::SymbolicGradients(
    const std::vector<Tensor>& targets, const std::vector<Tensor>& sources,
    const std::vector<Tensor>& output_gradients, const std::vector<Tensor>& recorded) {
  std::vector<bool> through(graph_.num_nodes());
  for (const Tensor& output : recorded) {
    absl::StatusOr<NodeOutput> node_output = graph_.OutputOf(output);
    if (node_output.ok()) through[node_output->node->id()] = true;
  }
  try {
    return graph_internal::GradientsThrough(
        targets, std::vector<GradientSource>(sources.begin(), sources.end()), output_gradients,
        &through);
  } catch (const Error& e) {
    return e.status();
  }
}

GraphContext* GraphContext::Current() {
  return dynamic_cast<GraphContext*>(&ExecutionContext::Current());
}

std::string GraphContext::NodeName(absl::string_view base) const {
  return graph_.UniqueName(absl::StrCat(scope_prefix_, base));
}

absl::StatusOr<NodeOutput> GraphContext::CaptureValue(const Tensor& tensor, OpSite site) {
  auto it = captured_.find(tensor.impl().get());
  if (it != captured_.end()) return it->second;
  if (tensor.dtype() == kResource && VariableOf(tensor) == nullptr) {
    return absl::InvalidArgumentError("a resource tensor that is not a variable handle");
  }
  NodeSpec spec = CaptureSpec(tensor);
  spec.name = NodeName(tensor.dtype() == kResource ? VariableOf(tensor)->name : "Const");
  spec.location = site.location;
  DUET_ASSIGN_OR_RETURN(const Node* node, graph_.AddNode(std::move(spec)));
  const NodeOutput output{node, 0};
  captured_.emplace(tensor.impl().get(), output);
  return output;
}

absl::StatusOr<NodeOutput> GraphContext::CaptureArgument(const Tensor& tensor, OpSite site) {
  DUET_ASSIGN_OR_RETURN(const NodeOutput outer, outer_->InputOf(tensor, site));
  for (const Capture& capture : captures_) {
    if (capture.outer == outer) return NodeOutput{capture.inner, 0};
  }
  NodeSpec spec = NodeSpec::Placeholder(outer.node->output_dtype(outer.index),
                                        outer.node->output_shape(outer.index));
  spec.device = outer.node->device();
  spec.name = graph_.UniqueName("capture");
  spec.location = site.location;
  DUET_ASSIGN_OR_RETURN(const Node* inner, graph_.AddNode(std::move(spec)));
  captures_.push_back({outer, inner});
  return NodeOutput{inner, 0};
}

// Note [Inlined aliases]: InlineFunction copies a function body's ops into this graph to
// differentiate them (call and If gradients). A custom_gradient backward function in the body
// captured tensors of the body graph itself (log1pexp's exp(x)), and runs while gradients() builds
// the copy's gradient: its ops must read the copies. InlineFunction records each body output's
// copy here, and InputOf reads a foreign tensor's alias before treating it as a capture.
void GraphContext::AddAlias(const NodeOutput& foreign, const Tensor& local) {
  aliases_.insert_or_assign(std::pair{foreign.node, foreign.index}, local);
}

absl::StatusOr<NodeOutput> GraphContext::InputOf(const Tensor& tensor, OpSite site) {
  if (!tensor.defined()) return absl::InvalidArgumentError("an input tensor is undefined");
  const NodeOutput* output = SymbolicOutput(tensor);
  const bool symbolic = output != nullptr;
  if (symbolic && !aliases_.empty() && !graph_.Owns(tensor)) {
    auto alias = aliases_.find(std::pair{output->node, output->index});
    if (alias != aliases_.end()) return InputOf(alias->second, site);
  }
  // Note [Function captures]
  if (outer_ != nullptr && (symbolic ? !graph_.Owns(tensor) : tensor.dtype() == kResource)) {
    return CaptureArgument(tensor, site);
  }
  if (!symbolic) return CaptureValue(tensor, site);  // values, variable handles
  return graph_.OutputOf(tensor);
}

namespace {

// Records where the node runs (Note [Placement]); host nodes keep the empty device string, so
// CPU-only GraphDefs stay as they were. A symbolic input carries its node's device, an eager one
// its own, which its capture node gets; the session copies values across device boundaries.
absl::Status PlaceNode(const OpCall& call, NodeSpec& spec) {
  DUET_ASSIGN_OR_RETURN(const Device device,
                        PlaceCall(call, HostInputs(call), DeviceScope::Innermost()));
  if (!device.is_host()) spec.device = device.tf_name();
  return absl::OkStatus();
}

}  // namespace

absl::Status GraphContext::Execute(OpCall& call, OutputList& outputs) {
  DUET_RETURN_IF_ERROR(BindAttrs(call));
  NodeSpec spec;
  spec.op = call.op;
  spec.inputs.reserve(call.inputs.size());
  for (const Tensor& input : call.inputs) {
    DUET_ASSIGN_OR_RETURN(NodeOutput output, InputOf(input, call.site));
    spec.inputs.push_back(output);
  }
  ShapeContext shapes(call);
  DUET_RETURN_IF_ERROR(InferShapes(shapes));
  spec.SetOutputs(shapes.outputs());
  DUET_RETURN_IF_ERROR(PlaceNode(call, spec));
  spec.name = NodeName(call.site.name.empty() ? absl::string_view(call.op->name) : call.site.name);
  spec.attrs = call.attrs;
  spec.control_inputs = control_inputs_;
  spec.location = call.site.location;
  std::vector<std::pair<int, int>> resources;  // Note [Automatic control dependencies]
  if (call.op->stateful) {
    for (const NodeOutput& in : spec.inputs) {
      if (in.node->output_dtype(in.index) != kResource) continue;
      resources.emplace_back(in.node->id(), in.index);
      auto it = last_resource_use_.find(resources.back());
      if (it != last_resource_use_.end()) spec.control_inputs.push_back(it->second);
    }
  }
  DUET_ASSIGN_OR_RETURN(const Node* node, graph_.AddNode(std::move(spec)));
  for (const auto& resource : resources) last_resource_use_[resource] = node;
  outputs.clear();
  for (int i = 0; i < node->num_outputs(); ++i) outputs.push_back(node->output(i));
  if (tape_internal::recording_tapes > 0) tape_internal::RecordOperation(call, outputs);
  return absl::OkStatus();
}

NameScope::NameScope(absl::string_view name) : context_(GraphContext::Current()) {
  if (context_ == nullptr) return;
  previous_size_ = context_->scope_prefix_.size();
  absl::StrAppend(&context_->scope_prefix_, name, "/");
}

NameScope::~NameScope() {
  if (context_ != nullptr) context_->scope_prefix_.resize(previous_size_);
}

ControlDependencies::ControlDependencies(const std::vector<Tensor>& tensors)
    : context_(GraphContext::Current()) {
  if (context_ == nullptr) return;
  previous_size_ = context_->control_inputs_.size();
  for (const Tensor& t : tensors) {
    absl::StatusOr<NodeOutput> output = context_->graph_.OutputOf(t);
    if (!output.ok()) {
      context_->control_inputs_.resize(previous_size_);
      throw Error(absl::Status(output.status().code(),
                               absl::StrCat("ControlDependencies: ", output.status().message())));
    }
    context_->control_inputs_.push_back(output->node);
  }
}

ControlDependencies::~ControlDependencies() {
  if (context_ != nullptr) context_->control_inputs_.resize(previous_size_);
}

}  // namespace duet
