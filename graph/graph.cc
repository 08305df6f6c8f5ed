#include "graph/graph.h"

#include <functional>
#include <queue>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/error.h"
#include "graph/graph_ops.h"
#include "ops/array/array_attrs.h"
#include "ops/function_body.h"

namespace duet {

struct GraphState {
  std::vector<std::unique_ptr<Node>> owned;  // also the removed nodes (Note [Rewriting graphs])
  std::vector<Node*> nodes;
  absl::flat_hash_map<std::string, Node*> by_name;
  int64_t renumberings = 0;
};

// Note [Closures in graphs]: host_function and custom_gradient put a C++ closure into a node's
// func attr, and a closure often captures symbolic tensors of the same graph (custom_gradient's
// backward captures forward values), which keep the graph state alive. Had the node owned the
// closure, state -> node -> closure -> tensor -> state would be a cycle, and every trace using
// custom_gradient would leak its graph. So a graph adopts the closure when it installs the node
// (FunctionBody::AdoptClosure): the body keeps only a weak reference, and the strong one lives
// in a ClosureStore held by the Graph handles (the user's, its copies', a session's), which no
// tensor reaches. A closure lives as long as some handle of a graph that calls it; calling it
// after that fails with FailedPrecondition instead of crashing.
struct ClosureStore {
  absl::Mutex mu;
  std::vector<std::shared_ptr<const void>> closures ABSL_GUARDED_BY(mu);
};

// Note [Rewriting graphs]: passes edit a graph in place. Symbolic tensors, sessions and other
// nodes point at nodes, so a removed node is never freed: it leaves the node list and the name
// index, gets id -1, and stays owned by the graph state until the graph and every tensor naming
// it are gone. Its name may be reused. Rewrite keeps a node's identity (name, id, consumers) and
// replaces what it computes; that is how a pass replaces a fetched node (a fusion's last node,
// a folded constant) without breaking names users hold.

namespace {

// What a symbolic tensor's TensorImpl::symbolic points to: the output it names, and its graph
// (kept alive by the tensor).
struct SymbolicRef final : SymbolicValue {
  SymbolicRef(std::shared_ptr<GraphState> graph, NodeOutput output)
      : graph(std::move(graph)), output(output) {}

  // Shape functions see the values of Const nodes (axes, shapes, perms built as constants) that
  // live on the host (Note [Constants on devices], below).
  const Tensor* constant_value() const override { return output.node->host_constant(); }

  std::shared_ptr<GraphState> graph;
  NodeOutput output;
};

const SymbolicRef* RefOf(const Tensor& tensor) {
  if (!tensor.defined()) return nullptr;
  return static_cast<const SymbolicRef*>(tensor.impl()->symbolic.get());
}

}  // namespace

// Note [Constants on devices]: a Const node's value lives where the tensor it was made from lives,
// so an eager GPU tensor captured into a graph (GraphContext::CaptureValue) is a Const whose value
// is GPU memory, which its node, placed on that device, hands on without a copy. Host code must
// never read it: the graph passes (folding, CSE, simplification, the fusions' scale and bias
// folds) and the shape functions treat such a Const as a value unknown until run time, as they
// treat a Placeholder. A virtual device's constants are the same (Note [Virtual devices]).
const Tensor* Node::host_constant() const {
  if (!kConstOp.is(*op_) || !bound_value_.defined()) return nullptr;
  if (bound_value_.has_value() && !bound_value_.device().is_host()) return nullptr;
  return &bound_value_;
}

std::string Node::source() const {
  if (location_.line() == 0) return "";
  return absl::StrCat(location_.file_name(), ":", location_.line());
}

Tensor Node::output(int i) const {
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = output_dtypes_[i];
  impl->shape = output_shapes_[i];
  impl->device = placement_;
  impl->symbolic = std::make_shared<const SymbolicRef>(graph_.lock(), NodeOutput{this, i});
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

Graph::Graph()
    : state_(std::make_shared<GraphState>()), closures_(std::make_shared<ClosureStore>()) {}
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

absl::Status Graph::CheckInputs(const NodeSpec& spec, absl::string_view name) const {
  if (!spec.device.empty() && !Device::Parse(spec.device).ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("node '", name, "' has an unknown device '", spec.device, "'"));
  }
  auto owns = [&](const Node* n) {
    return n != nullptr && !n->removed() && n->graph_.lock() == state_;
  };
  for (const NodeOutput& in : spec.inputs) {
    if (!owns(in.node) || in.index < 0 || in.index >= in.node->num_outputs()) {
      return absl::InvalidArgumentError(
          absl::StrCat("an input of node '", name, "' is not an output of this graph"));
    }
  }
  for (const Node* in : spec.control_inputs) {
    if (!owns(in)) {
      return absl::InvalidArgumentError(
          absl::StrCat("a control input of node '", name, "' is not a node of this graph"));
    }
  }
  return absl::OkStatus();
}

// Everything but the name and id.
void Graph::Install(Node& node, NodeSpec spec) {
  node.op_ = spec.op;
  node.attrs_ = std::move(spec.attrs);
  node.inputs_ = std::move(spec.inputs);
  node.control_inputs_ = std::move(spec.control_inputs);
  node.device_ = std::move(spec.device);
  // CheckInputs has parsed it already.
  node.placement_ = node.device_.empty() ? Device::cpu() : *Device::Parse(node.device_);
  node.location_ = spec.location;
  node.output_dtypes_ = std::move(spec.output_dtypes);
  node.output_shapes_ = std::move(spec.output_shapes);
  node.bound_value_ = std::move(spec.bound_value);
  for (const AttrValue& attr : node.attrs_) {  // Note [Closures in graphs]
    const auto* func = std::get_if<FuncAttr>(&attr);
    if (func == nullptr || func->body == nullptr) continue;
    if (std::shared_ptr<const void> closure = func->body->AdoptClosure()) {
      absl::MutexLock lock(&closures_->mu);
      closures_->closures.push_back(std::move(closure));
    }
  }
  if (kConstOp.is(*node.op_)) {  // its value attr, checked by the shape function
    if (const auto* value =
            std::get_if<Tensor>(&node.attrs_[AttrIndex(*node.op_, ConstAttrs::kValue)])) {
      node.bound_value_ = *value;
    }
  }
}

absl::StatusOr<const Node*> Graph::AddNode(NodeSpec spec) {
  if (spec.name.empty() || FindNode(spec.name) != nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("node name '", spec.name, "' is empty or already used in the graph"));
  }
  DUET_RETURN_IF_ERROR(CheckInputs(spec, spec.name));
  auto node = std::unique_ptr<Node>(new Node);
  node->id_ = num_nodes();
  node->name_ = std::move(spec.name);
  Install(*node, std::move(spec));
  node->graph_ = state_;
  Node* raw = node.get();
  state_->by_name.emplace(raw->name_, raw);
  state_->nodes.push_back(raw);
  state_->owned.push_back(std::move(node));
  return raw;
}

Node* Graph::Mutable(const Node* node) {
  if (node == nullptr || node->removed() || node->graph_.lock() != state_) {
    throw Error(absl::InternalError("a graph rewrite names a node that is not in the graph"));
  }
  return state_->nodes[node->id()];
}

void Graph::ReplaceUses(NodeOutput from, NodeOutput to) {
  for (Node* node : state_->nodes) {
    for (NodeOutput& in : node->inputs_) {
      if (in == from) in = to;
    }
  }
}

void Graph::SetInput(const Node* node, int index, NodeOutput to) {
  Mutable(node)->inputs_.at(index) = to;
}

void Graph::SetControlInputs(const Node* node, std::vector<const Node*> control_inputs) {
  Mutable(node)->control_inputs_ = std::move(control_inputs);
}

absl::Status Graph::Rewrite(const Node* node, NodeSpec spec) {
  Node* target = Mutable(node);
  DUET_RETURN_IF_ERROR(CheckInputs(spec, target->name_));
  for (const Node* consumer : state_->nodes) {
    for (const NodeOutput& in : consumer->inputs_) {
      if (in.node != target) continue;
      if (in.index >= static_cast<int>(spec.output_dtypes.size()) ||
          spec.output_dtypes[in.index] != target->output_dtypes_[in.index]) {
        return absl::FailedPreconditionError(absl::StrCat(
            "rewriting node '", target->name_, "' as ", spec.op->name, " would change output ",
            in.index, ", which node '", consumer->name_, "' reads"));
      }
    }
  }
  Install(*target, std::move(spec));
  return absl::OkStatus();
}

void Graph::AddFusedSources(const Node* node, absl::Span<const std::string> sources) {
  Node* target = Mutable(node);
  const std::string own = target->source();
  for (const std::string& source : sources) {
    if (source.empty() || source == own) continue;
    auto& known = target->fused_sources_;
    if (std::find(known.begin(), known.end(), source) == known.end()) known.push_back(source);
  }
}

absl::Status Graph::RemoveNodes(absl::Span<const Node* const> nodes) {
  absl::flat_hash_set<const Node*> doomed;
  for (const Node* node : nodes) doomed.insert(Mutable(node));
  for (const Node* node : state_->nodes) {
    if (doomed.contains(node)) continue;
    auto reads = [&](const Node* in) {
      if (!doomed.contains(in)) return absl::OkStatus();
      return absl::FailedPreconditionError(absl::StrCat("cannot remove node '", in->name(),
                                                        "': node '", node->name(), "' reads it"));
    };
    for (const NodeOutput& in : node->inputs_) DUET_RETURN_IF_ERROR(reads(in.node));
    for (const Node* in : node->control_inputs_) DUET_RETURN_IF_ERROR(reads(in));
  }
  std::vector<Node*> kept;
  kept.reserve(state_->nodes.size() - doomed.size());
  for (Node* node : state_->nodes) {
    if (!doomed.contains(node)) {
      node->id_ = static_cast<int>(kept.size());
      kept.push_back(node);
      continue;
    }
    state_->by_name.erase(node->name_);
    node->id_ = -1;
  }
  state_->nodes = std::move(kept);
  ++state_->renumberings;
  return absl::OkStatus();
}

absl::Status Graph::SortTopologically() {
  const int n = num_nodes();
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> consumers(n);
  for (const Node* node : state_->nodes) {
    auto edge = [&](const Node* from) {
      consumers[from->id_].push_back(node->id_);
      ++pending[node->id_];
    };
    for (const NodeOutput& in : node->inputs_) edge(in.node);
    for (const Node* in : node->control_inputs_) edge(in);
  }
  // Kahn's algorithm; a min-heap of ready ids keeps the current order where it is already valid.
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.push(i);
  }
  std::vector<Node*> order;
  order.reserve(n);
  while (!ready.empty()) {
    const int id = ready.top();
    ready.pop();
    order.push_back(state_->nodes[id]);
    for (int c : consumers[id]) {
      if (--pending[c] == 0) ready.push(c);
    }
  }
  if (static_cast<int>(order.size()) != n) {
    for (int i = 0; i < n; ++i) {
      if (pending[i] > 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("the graph has a cycle through node '", state_->nodes[i]->name_, "'"));
      }
    }
  }
  for (int i = 0; i < n; ++i) order[i]->id_ = i;
  state_->nodes = std::move(order);
  ++state_->renumberings;
  return absl::OkStatus();
}

int64_t Graph::renumberings() const { return state_->renumberings; }

Graph Graph::Copy(std::vector<const Node*>* copy_of) const {
  Graph copy(std::make_shared<GraphState>(), closures_);
  std::vector<const Node*> map(num_nodes(), nullptr);
  // Two rounds, so that copies need no topological order: nodes, then their edges.
  for (const Node* node : state_->nodes) {
    auto raw = std::unique_ptr<Node>(new Node);
    raw->id_ = node->id_;
    raw->name_ = node->name_;
    raw->op_ = node->op_;
    raw->attrs_ = node->attrs_;
    raw->device_ = node->device_;
    raw->placement_ = node->placement_;
    raw->location_ = node->location_;
    raw->fused_sources_ = node->fused_sources_;
    raw->output_dtypes_ = node->output_dtypes_;
    raw->output_shapes_ = node->output_shapes_;
    raw->bound_value_ = node->bound_value_;
    raw->graph_ = copy.state_;
    map[node->id_] = raw.get();
    copy.state_->by_name.emplace(raw->name_, raw.get());
    copy.state_->nodes.push_back(raw.get());
    copy.state_->owned.push_back(std::move(raw));
  }
  for (const Node* node : state_->nodes) {
    Node* target = copy.state_->nodes[node->id_];
    for (const NodeOutput& in : node->inputs_) {
      target->inputs_.push_back({map[in.node->id_], in.index});
    }
    for (const Node* in : node->control_inputs_) target->control_inputs_.push_back(map[in->id_]);
  }
  if (copy_of != nullptr) *copy_of = std::move(map);
  return copy;
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
  if (ref->output.node->removed()) {
    return absl::InvalidArgumentError(absl::StrCat("tensor '", Node::EdgeName(ref->output),
                                                   "' names a node that optimize() removed"));
  }
  return ref->output;
}

bool Graph::Owns(const Tensor& tensor) const {
  const SymbolicRef* ref = RefOf(tensor);
  return ref != nullptr && ref->graph == state_ && !ref->output.node->removed();
}

NodeSpec NodeSpec::Const(const Tensor& value) {
  NodeSpec spec;
  spec.op = &kConstOp.def();
  spec.attrs = spec.op->default_attrs;
  spec.set(ConstAttrs::kValue, value);
  spec.set(ConstAttrs::kDtype, value.dtype());
  spec.output_dtypes = {value.dtype()};
  spec.output_shapes = {value.shape()};
  return spec;
}

NodeSpec NodeSpec::Placeholder(DType dtype, const Shape& shape) {
  NodeSpec spec;
  spec.op = &kPlaceholderOp.def();
  spec.attrs = spec.op->default_attrs;
  spec.set(PlaceholderAttrs::kDtype, dtype);
  spec.set(PlaceholderAttrs::kShape, shape);
  spec.output_dtypes = {dtype};
  spec.output_shapes = {shape};
  return spec;
}

Tensor ShapeOnly(DType dtype, const Shape& shape) {
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = dtype;
  impl->shape = shape;
  return Tensor(std::move(impl));
}

}  // namespace duet
