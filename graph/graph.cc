#include "graph/graph.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace duet {

struct GraphState {
  std::vector<std::unique_ptr<Node>> owned;
  std::vector<Node*> nodes;
  absl::flat_hash_map<std::string, Node*> by_name;
};

namespace {

// What a symbolic tensor's TensorImpl::symbolic points to: the output it names, and its graph
// (kept alive by the tensor).
struct SymbolicRef {
  std::shared_ptr<GraphState> graph;
  NodeOutput output;
};

const SymbolicRef* RefOf(const Tensor& tensor) {
  if (!tensor.defined()) return nullptr;
  return static_cast<const SymbolicRef*>(tensor.impl()->symbolic.get());
}

}  // namespace

std::string Node::source() const {
  if (location_.line() == 0) return "";
  return absl::StrCat(location_.file_name(), ":", location_.line());
}

Tensor Node::output(int i) const {
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = output_dtypes_[i];
  impl->shape = output_shapes_[i];
  impl->symbolic = std::make_shared<const SymbolicRef>(SymbolicRef{graph_.lock(), {this, i}});
  return Tensor(std::move(impl));
}

std::string Node::EdgeName(const NodeOutput& output) {
  if (output.index == 0) return output.node->name();
  return absl::StrCat(output.node->name(), ":", output.index);
}

const NodeOutput* SymbolicOutput(const Tensor& tensor) {
  const SymbolicRef* ref = RefOf(tensor);
  return ref == nullptr ? nullptr : &ref->output;
}

Graph::Graph() : state_(std::make_shared<GraphState>()) {}
Graph::~Graph() = default;
Graph::Graph(Graph&&) noexcept = default;
Graph& Graph::operator=(Graph&&) noexcept = default;

int Graph::num_nodes() const { return static_cast<int>(state_->nodes.size()); }

absl::Span<Node* const> Graph::nodes() const { return state_->nodes; }

const Node* Graph::FindNode(absl::string_view name) const {
  auto it = state_->by_name.find(name);
  return it == state_->by_name.end() ? nullptr : it->second;
}

absl::StatusOr<NodeOutput> Graph::FindOutput(absl::string_view edge_name) const {
  absl::string_view name = edge_name;
  int index = 0;
  const size_t colon = edge_name.rfind(':');
  if (colon != absl::string_view::npos) {
    name = edge_name.substr(0, colon);
    if (!absl::SimpleAtoi(edge_name.substr(colon + 1), &index) || index < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", edge_name, "' is not a tensor name (\"node\" or \"node:index\")"));
    }
  }
  const Node* node = FindNode(name);
  if (node == nullptr) {
    return absl::NotFoundError(absl::StrCat("the graph has no node named '", name, "'"));
  }
  if (index >= node->num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat("node '", name, "' (", node->op().name, ") has ",
                                                   node->num_outputs(),
                                                   " outputs; there is no output ", index));
  }
  return NodeOutput{node, index};
}

std::string Graph::UniqueName(absl::string_view base) const {
  if (FindNode(base) == nullptr) return std::string(base);
  for (int i = 1;; ++i) {
    std::string name = absl::StrCat(base, "_", i);
    if (FindNode(name) == nullptr) return name;
  }
}

absl::StatusOr<const Node*> Graph::AddNode(NodeSpec spec) {
  if (spec.name.empty() || FindNode(spec.name) != nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("node name '", spec.name, "' is empty or already used in the graph"));
  }
  auto owns = [&](const Node* n) { return n != nullptr && n->graph_.lock() == state_; };
  for (const NodeOutput& in : spec.inputs) {
    if (!owns(in.node) || in.index < 0 || in.index >= in.node->num_outputs()) {
      return absl::InvalidArgumentError(
          absl::StrCat("an input of node '", spec.name, "' is not an output of this graph"));
    }
  }
  for (const Node* in : spec.control_inputs) {
    if (!owns(in)) {
      return absl::InvalidArgumentError(
          absl::StrCat("a control input of node '", spec.name, "' is not a node of this graph"));
    }
  }
  auto node = std::unique_ptr<Node>(new Node);
  node->id_ = num_nodes();
  node->name_ = std::move(spec.name);
  node->op_ = spec.op;
  node->attrs_ = std::move(spec.attrs);
  node->inputs_ = std::move(spec.inputs);
  node->control_inputs_ = std::move(spec.control_inputs);
  node->device_ = std::move(spec.device);
  node->location_ = spec.location;
  node->output_dtypes_ = std::move(spec.output_dtypes);
  node->output_shapes_ = std::move(spec.output_shapes);
  node->bound_value_ = std::move(spec.bound_value);
  if (node->op_->name == "Const") {  // its value attr, checked by the shape function
    if (const auto* value = std::get_if<Tensor>(&node->attrs_[node->op_->attr_index("value")])) {
      node->bound_value_ = *value;
    }
  }
  node->graph_ = state_;
  Node* raw = node.get();
  state_->by_name.emplace(raw->name_, raw);
  state_->nodes.push_back(raw);
  state_->owned.push_back(std::move(node));
  return raw;
}

absl::StatusOr<NodeOutput> Graph::OutputOf(const Tensor& tensor) const {
  const SymbolicRef* ref = RefOf(tensor);
  if (ref == nullptr) {
    return absl::InvalidArgumentError("the tensor is not a symbolic tensor of a graph");
  }
  if (ref->graph != state_) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor '", Node::EdgeName(ref->output), "' belongs to another graph"));
  }
  return ref->output;
}

bool Graph::Owns(const Tensor& tensor) const {
  const SymbolicRef* ref = RefOf(tensor);
  return ref != nullptr && ref->graph == state_;
}

}  // namespace duet
