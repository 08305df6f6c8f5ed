#include "graph/session.h"

#include <deque>

#include "absl/strings/str_cat.h"
#include "core/resource.h"
#include "kernels/kernel_registry.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {

// One node's work in a plan: its kernel, where its inputs come from and its outputs go (value
// slots), and which slots it is the last reader of (freed right after it runs).
struct PlanStep {
  const Node* node = nullptr;
  const KernelDef* kernel = nullptr;
  std::vector<int> input_slots;
  int output_slot = 0;  // outputs occupy output_slot .. output_slot + num_outputs - 1
  std::vector<int> release;
};

// The values of one run. Frames are reused across runs, so a run does not allocate them.
struct Session::Frame {
  std::vector<Tensor> slots;
  std::vector<OpCall> calls;  // per step: the plan's prototype call; inputs filled per run
};

struct Session::Plan {
  std::vector<PlanStep> steps;
  std::vector<OpCall> calls;  // per step: op, attrs, site (node name and line); empty inputs
  int num_slots = 0;
  std::vector<int> feed_slots;
  std::vector<int> fetch_slots;
  std::vector<std::pair<int, Tensor>> constants;  // outputs of Const and captured nodes

  std::mutex frames_mu;
  std::vector<std::unique_ptr<Frame>> free_frames;  // guarded by frames_mu

  std::unique_ptr<Frame> AcquireFrame();
  void ReleaseFrame(std::unique_ptr<Frame> frame);
};

std::unique_ptr<Session::Frame> Session::Plan::AcquireFrame() {
  {
    std::lock_guard<std::mutex> lock(frames_mu);
    if (!free_frames.empty()) {
      std::unique_ptr<Frame> frame = std::move(free_frames.back());
      free_frames.pop_back();
      return frame;
    }
  }
  auto frame = std::make_unique<Frame>();
  frame->slots.resize(num_slots);
  frame->calls = calls;
  return frame;
}

void Session::Plan::ReleaseFrame(std::unique_ptr<Frame> frame) {
  for (Tensor& slot : frame->slots) slot = Tensor();
  for (OpCall& call : frame->calls) {
    for (Tensor& input : call.inputs) input = Tensor();
  }
  std::lock_guard<std::mutex> lock(frames_mu);
  free_frames.push_back(std::move(frame));
}

namespace {

struct NodeOutputHash {
  size_t operator()(const NodeOutput& o) const { return absl::HashOf(o.node, o.index); }
};

std::string Describe(const Node& node) {
  const std::string source = node.source();
  return absl::StrCat(node.op().name, " node '", node.name(), "'",
                      source.empty() ? "" : absl::StrCat(" (made at ", source, ")"));
}

// The nodes the fetches and targets need, in a topological order; fed outputs cut the graph.
absl::StatusOr<std::vector<const Node*>> NeededNodes(
    const Graph& graph, const absl::flat_hash_map<NodeOutput, int, NodeOutputHash>& fed,
    const std::vector<NodeOutput>& fetches, const std::vector<const Node*>& targets) {
  std::vector<char> needed(graph.num_nodes(), 0);
  std::vector<const Node*> stack(targets.begin(), targets.end());
  auto need_output = [&](const NodeOutput& o) {
    if (!fed.contains(o)) stack.push_back(o.node);
  };
  for (const NodeOutput& fetch : fetches) need_output(fetch);
  std::vector<const Node*> nodes;
  while (!stack.empty()) {
    const Node* node = stack.back();
    stack.pop_back();
    if (needed[node->id()]) continue;
    needed[node->id()] = 1;
    nodes.push_back(node);
    for (const NodeOutput& in : node->inputs()) need_output(in);
    for (const Node* in : node->control_inputs()) stack.push_back(in);
  }
  // Kahn's algorithm over the needed nodes, seeded in id order so plans are deterministic.
  std::sort(nodes.begin(), nodes.end(),
            [](const Node* a, const Node* b) { return a->id() < b->id(); });
  std::vector<int> pending(graph.num_nodes(), 0);
  std::vector<std::vector<const Node*>> consumers(graph.num_nodes());
  for (const Node* node : nodes) {
    for (const NodeOutput& in : node->inputs()) {
      if (fed.contains(in)) continue;
      ++pending[node->id()];
      consumers[in.node->id()].push_back(node);
    }
    for (const Node* in : node->control_inputs()) {
      ++pending[node->id()];
      consumers[in->id()].push_back(node);
    }
  }
  std::deque<const Node*> ready;
  for (const Node* node : nodes) {
    if (pending[node->id()] == 0) ready.push_back(node);
  }
  std::vector<const Node*> order;
  order.reserve(nodes.size());
  while (!ready.empty()) {
    const Node* node = ready.front();
    ready.pop_front();
    order.push_back(node);
    for (const Node* consumer : consumers[node->id()]) {
      if (--pending[consumer->id()] == 0) ready.push_back(consumer);
    }
  }
  if (order.size() != nodes.size()) {
    for (const Node* node : nodes) {
      if (pending[node->id()] > 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("the graph has a cycle through ", Describe(*node)));
      }
    }
  }
  return order;
}

// The step's call and outputs: shapes inferred, outputs allocated, kernel run.
absl::Status RunStep(const PlanStep& step, OpCall& call, OutputList& outputs) {
  ShapeContext shapes(call);
  DUET_RETURN_IF_ERROR(InferShapes(shapes));
  outputs.resize(shapes.num_outputs());
  if (!step.kernel->allocates_outputs) {
    for (int i = 0; i < shapes.num_outputs(); ++i) {
      const ShapeContext::Output& out = shapes.output(i);
      DUET_ASSIGN_OR_RETURN(outputs[i], Tensor::TryEmpty(out.dtype, out.shape, Device::cpu()));
    }
  }
  KernelContext ctx(call, outputs, Device::cpu());
  return step.kernel->fn(ctx);
}

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

absl::StatusOr<Session::Plan*> Session::PlanFor(const std::vector<NodeOutput>& feeds,
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

  auto plan = std::make_unique<Plan>();
  absl::flat_hash_map<NodeOutput, int, NodeOutputHash> slot_of;
  for (const NodeOutput& feed : feeds) {
    auto [entry, added] = slot_of.try_emplace(feed, plan->num_slots);
    if (!added) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", Node::EdgeName(feed), "' is fed more than once"));
    }
    plan->feed_slots.push_back(plan->num_slots++);
  }
  DUET_ASSIGN_OR_RETURN(std::vector<const Node*> order,
                        NeededNodes(graph_, slot_of, fetches, targets));
  for (const Node* node : order) {
    PlanStep step;
    step.node = node;
    step.output_slot = plan->num_slots;
    plan->num_slots += node->num_outputs();
    for (int i = 0; i < node->num_outputs(); ++i) {
      slot_of.try_emplace(NodeOutput{node, i}, step.output_slot + i);
    }
    if (const Tensor* value = node->bound_value()) {
      plan->constants.emplace_back(step.output_slot, *value);
      continue;
    }
    if (node->op().name == "VarHandleOp") {
      plan->constants.emplace_back(step.output_slot, SessionVariable(*node));
      continue;
    }
    if (node->op().name == "Placeholder") {
      return absl::InvalidArgumentError(
          absl::StrCat(Describe(*node), " must be fed: give it a value in Session::run's feeds"));
    }
    for (const NodeOutput& in : node->inputs()) step.input_slots.push_back(slot_of.at(in));
    OpCall call(&node->op(), TensorList(node->inputs().size()),
                OpSite(node->name(), node->location()));
    call.attrs = node->attrs();
    step.kernel = FindKernel(node->op(), DeviceType::kCpu, DispatchDType(call));
    if (step.kernel == nullptr) {
      const absl::Status missing = NoKernelError(node->op(), DeviceType::kCpu, DispatchDType(call));
      return absl::Status(missing.code(), absl::StrCat(Describe(*node), ": ", missing.message()));
    }
    plan->steps.push_back(std::move(step));
    plan->calls.push_back(std::move(call));
  }
  for (const NodeOutput& fetch : fetches) plan->fetch_slots.push_back(slot_of.at(fetch));
  // Liveness: each slot is freed after its last reader, unless it is fetched.
  std::vector<int> last_reader(plan->num_slots, -1);
  for (int s = 0; s < static_cast<int>(plan->steps.size()); ++s) {
    for (int slot : plan->steps[s].input_slots) last_reader[slot] = s;
  }
  for (int slot : plan->fetch_slots) last_reader[slot] = -1;
  for (int slot = 0; slot < plan->num_slots; ++slot) {
    if (last_reader[slot] >= 0) plan->steps[last_reader[slot]].release.push_back(slot);
  }
  Plan* result = plan.get();
  plans_.emplace(std::move(key), std::move(plan));
  return result;
}

absl::StatusOr<std::vector<Tensor>> Session::Run(const FeedList& feeds,
                                                 const std::vector<GraphTensor>& fetches,
                                                 const std::vector<GraphTensor>& targets) {
  std::vector<NodeOutput> feed_outputs, fetch_outputs;
  std::vector<const Node*> target_nodes;
  for (const auto& [name, value] : feeds) {
    DUET_ASSIGN_OR_RETURN(NodeOutput output, name.Resolve(graph_));
    DUET_RETURN_IF_ERROR(CheckFeed(output, value));
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
  std::unique_ptr<Frame> frame = plan->AcquireFrame();
  std::vector<Tensor>& slots = frame->slots;
  for (const auto& [slot, value] : plan->constants) slots[slot] = value;
  for (size_t i = 0; i < feeds.size(); ++i) slots[plan->feed_slots[i]] = feeds[i].second;
  absl::Status status;
  for (size_t s = 0; s < plan->steps.size() && status.ok(); ++s) {
    const PlanStep& step = plan->steps[s];
    OpCall& call = frame->calls[s];
    for (size_t j = 0; j < step.input_slots.size(); ++j)
      call.inputs[j] = slots[step.input_slots[j]];
    OutputList outputs;
    status = RunStep(step, call, outputs);
    if (!status.ok()) {
      status = AnnotateOpError(call, status);
      break;
    }
    for (size_t k = 0; k < outputs.size(); ++k) slots[step.output_slot + k] = std::move(outputs[k]);
    for (Tensor& input : call.inputs) input = Tensor();
    for (int slot : step.release) slots[slot] = Tensor();
  }
  std::vector<Tensor> results;
  if (status.ok()) {
    results.reserve(plan->fetch_slots.size());
    for (int slot : plan->fetch_slots) results.push_back(slots[slot]);
  }
  plan->ReleaseFrame(std::move(frame));
  if (!status.ok()) return status;
  return results;
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
