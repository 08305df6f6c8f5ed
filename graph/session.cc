#include "graph/session.h"

#include "absl/strings/str_cat.h"
#include "core/resource.h"

namespace duet {

namespace {

// Checks a fed value against its endpoint. Names the endpoint only on failure: this runs for every
// feed of every run.
absl::Status CheckFeed(const NodeOutput& endpoint, const Tensor& value) {
  if (!value.defined() || !value.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat("the value fed to '", Node::EdgeName(endpoint),
                                                   "' is not a tensor with a value"));
  }
  const DType dtype = endpoint.node->output_dtype(endpoint.index);
  const Shape& shape = endpoint.node->output_shape(endpoint.index);
  if (value.dtype() != dtype || !value.shape().IsCompatibleWith(shape)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", Node::EdgeName(endpoint), "' is ", DTypeName(dtype), " ", shape.str(),
        " but was fed a ", DTypeName(value.dtype()), " ", value.shape().str(), " tensor"));
  }
  return absl::OkStatus();
}

// The outputs that `tensors` name in `graph`, in order.
absl::StatusOr<std::vector<NodeOutput>> ResolveAll(const Graph& graph,
                                                   const std::vector<GraphTensor>& tensors) {
  std::vector<NodeOutput> outputs;
  outputs.reserve(tensors.size());
  for (const GraphTensor& tensor : tensors) {
    DUET_ASSIGN_OR_RETURN(NodeOutput output, tensor.Resolve(graph));
    outputs.push_back(output);
  }
  return outputs;
}

}  // namespace

absl::StatusOr<NodeOutput> GraphTensor::Resolve(const Graph& graph) const {
  if (tensor_.defined()) return graph.OutputOf(tensor_);
  return graph.FindOutput(name_);
}

absl::StatusOr<const Node*> GraphTensor::ResolveNode(const Graph& graph) const {
  if (tensor_.defined() || name_.find(':') != std::string::npos) {
    DUET_ASSIGN_OR_RETURN(NodeOutput output, Resolve(graph));
    return output.node;
  }
  const Node* node = graph.FindNode(name_);
  if (node == nullptr) {
    return absl::NotFoundError(absl::StrCat("the graph has no node named '", name_, "'"));
  }
  return node;
}

Session::Session(const Graph& graph) : graph_(graph.state_) {}
Session::~Session() = default;

int Session::num_plans() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(plans_.size());
}

Tensor Session::SessionVariable(const Node& node) {
  const OpDef& op = node.op();
  std::string name = node.attr<std::string>(op.attr_index("shared_name"));
  if (name.empty()) name = node.name();
  Tensor& handle = variables_[name];
  if (!handle.defined()) {
    auto variable = std::make_shared<VariableResource>();
    variable->name = name;
    variable->dtype = node.attr<DType>(op.attr_index("dtype"));
    variable->shape = node.attr<Shape>(op.attr_index("shape"));
    handle = MakeResourceTensor(std::move(variable), Device::cpu());
  }
  return handle;
}

// The signature as integers: the numbers of feeds and fetches, each feed's and fetch's node id
// and output index, each target's node id. Cheaper to build and hash on every run than a string.
Session::Signature Session::SignatureOf(const std::vector<NodeOutput>& feeds,
                                        const std::vector<NodeOutput>& fetches,
                                        const std::vector<const Node*>& targets) {
  Signature key = {static_cast<int>(feeds.size()), static_cast<int>(fetches.size())};
  for (const NodeOutput& f : feeds) key.insert(key.end(), {f.node->id(), f.index});
  for (const NodeOutput& f : fetches) key.insert(key.end(), {f.node->id(), f.index});
  for (const Node* t : targets) key.push_back(t->id());
  return key;
}

absl::StatusOr<Plan*> Session::PlanFor(const std::vector<NodeOutput>& feeds,
                                       const std::vector<NodeOutput>& fetches,
                                       const std::vector<const Node*>& targets) {
  Signature key = SignatureOf(feeds, fetches, targets);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = plans_.find(key);
  if (it != plans_.end()) return it->second.get();
  DUET_ASSIGN_OR_RETURN(std::unique_ptr<Plan> plan,
                        Plan::Compile(graph_, feeds, fetches, targets,
                                      [this](const Node& node) { return SessionVariable(node); }));
  Plan* result = plan.get();
  plans_.emplace(std::move(key), std::move(plan));
  return result;
}

absl::StatusOr<Plan*> Session::ResolvePlan(const std::vector<NodeOutput>& feeds,
                                           const std::vector<GraphTensor>& fetches,
                                           const std::vector<GraphTensor>& targets) {
  DUET_ASSIGN_OR_RETURN(const std::vector<NodeOutput> fetch_outputs, ResolveAll(graph_, fetches));
  std::vector<const Node*> target_nodes;
  target_nodes.reserve(targets.size());
  for (const GraphTensor& target : targets) {
    DUET_ASSIGN_OR_RETURN(const Node* node, target.ResolveNode(graph_));
    target_nodes.push_back(node);
  }
  return PlanFor(feeds, fetch_outputs, target_nodes);
}

absl::StatusOr<std::vector<Tensor>> Session::Run(const FeedList& feeds,
                                                 const std::vector<GraphTensor>& fetches,
                                                 const std::vector<GraphTensor>& targets) {
  std::vector<NodeOutput> feed_outputs;
  std::vector<Tensor> values;
  feed_outputs.reserve(feeds.size());
  values.reserve(feeds.size());
  for (const auto& [name, value] : feeds) {
    DUET_ASSIGN_OR_RETURN(NodeOutput output, name.Resolve(graph_));
    feed_outputs.push_back(output);
    values.push_back(value);
  }
  DUET_ASSIGN_OR_RETURN(Plan * plan, ResolvePlan(feed_outputs, fetches, targets));
  for (size_t i = 0; i < feeds.size(); ++i) {
    DUET_RETURN_IF_ERROR(CheckFeed(feed_outputs[i], values[i]));
  }
  return plan->Run(values);
}

Session::PlanInfo Session::plan_info(const std::vector<GraphTensor>& feeds,
                                     const std::vector<GraphTensor>& fetches,
                                     const std::vector<GraphTensor>& targets) {
  absl::StatusOr<std::vector<NodeOutput>> feed_outputs = ResolveAll(graph_, feeds);
  if (!feed_outputs.ok()) throw Error(feed_outputs.status());
  absl::StatusOr<Plan*> plan = ResolvePlan(*feed_outputs, fetches, targets);
  if (!plan.ok()) throw Error(plan.status());
  return {(*plan)->num_steps(), (*plan)->last_run_static(), (*plan)->arena_bytes()};
}

std::vector<Tensor> Session::run(const FeedList& feeds, const std::vector<GraphTensor>& fetches,
                                 const std::vector<GraphTensor>& targets) {
  absl::StatusOr<std::vector<Tensor>> results = Run(feeds, fetches, targets);
  if (!results.ok()) {
    throw Error(absl::Status(results.status().code(),
                             absl::StrCat("Session::run: ", results.status().message())));
  }
  return *std::move(results);
}

}  // namespace duet
