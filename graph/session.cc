#include "graph/session.h"

#include "absl/strings/str_cat.h"
#include "core/resource.h"

namespace duet {

namespace {

absl::Status CheckFeed(const NodeOutput& endpoint, const Tensor& value) {
  const std::string name = Node::EdgeName(endpoint);
  if (!value.defined() || !value.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the value fed to '", name, "' is not a tensor with a value"));
  }
  const DType dtype = endpoint.node->output_dtype(endpoint.index);
  const Shape& shape = endpoint.node->output_shape(endpoint.index);
  if (value.dtype() != dtype || !value.shape().IsCompatibleWith(shape)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", name, "' is ", DTypeName(dtype), " ", shape.str(), " but was fed a ",
                     DTypeName(value.dtype()), " ", value.shape().str(), " tensor"));
  }
  return absl::OkStatus();
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

absl::StatusOr<Plan*> Session::PlanFor(const std::vector<NodeOutput>& feeds,
                                       const std::vector<NodeOutput>& fetches,
                                       const std::vector<const Node*>& targets) {
  std::string key;
  for (const NodeOutput& f : feeds) absl::StrAppend(&key, f.node->id(), ":", f.index, ",");
  key += "|";
  for (const NodeOutput& f : fetches) absl::StrAppend(&key, f.node->id(), ":", f.index, ",");
  key += "|";
  for (const Node* t : targets) absl::StrAppend(&key, t->id(), ",");
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

absl::StatusOr<Plan*> Session::ResolvePlan(const std::vector<GraphTensor>& feeds,
                                           const std::vector<GraphTensor>& fetches,
                                           const std::vector<GraphTensor>& targets,
                                           std::vector<NodeOutput>* resolved_feeds) {
  std::vector<NodeOutput> feed_outputs, fetch_outputs;
  std::vector<const Node*> target_nodes;
  for (const GraphTensor& feed : feeds) {
    DUET_ASSIGN_OR_RETURN(NodeOutput output, feed.Resolve(graph_));
    feed_outputs.push_back(output);
  }
  for (const GraphTensor& fetch : fetches) {
    DUET_ASSIGN_OR_RETURN(NodeOutput output, fetch.Resolve(graph_));
    fetch_outputs.push_back(output);
  }
  for (const GraphTensor& target : targets) {
    DUET_ASSIGN_OR_RETURN(const Node* node, target.ResolveNode(graph_));
    target_nodes.push_back(node);
  }
  DUET_ASSIGN_OR_RETURN(Plan * plan, PlanFor(feed_outputs, fetch_outputs, target_nodes));
  if (resolved_feeds != nullptr) *resolved_feeds = std::move(feed_outputs);
  return plan;
}

absl::StatusOr<std::vector<Tensor>> Session::Run(const FeedList& feeds,
                                                 const std::vector<GraphTensor>& fetches,
                                                 const std::vector<GraphTensor>& targets) {
  std::vector<GraphTensor> names;
  std::vector<Tensor> values;
  for (const auto& [name, value] : feeds) {
    names.push_back(name);
    values.push_back(value);
  }
  std::vector<NodeOutput> feed_outputs;
  DUET_ASSIGN_OR_RETURN(Plan * plan, ResolvePlan(names, fetches, targets, &feed_outputs));
  for (size_t i = 0; i < feeds.size(); ++i) {
    DUET_RETURN_IF_ERROR(CheckFeed(feed_outputs[i], values[i]));
  }
  return plan->Run(values);
}

Session::PlanInfo Session::plan_info(const std::vector<GraphTensor>& feeds,
                                     const std::vector<GraphTensor>& fetches,
                                     const std::vector<GraphTensor>& targets) {
  absl::StatusOr<Plan*> plan = ResolvePlan(feeds, fetches, targets);
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
