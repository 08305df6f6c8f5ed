#include "graph/session.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/resource.h"
#include "graph/device_copies.h"
#include "graph/graph_ops.h"
#include "graph/passes/rewrite.h"
#include "ops/state/state_attrs.h"

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

Session::Session(const Graph& graph, SessionOptions options)
    : graph_(graph.Share()), options_(std::move(options)) {}
Session::~Session() = default;

int Session::num_plans() const {
  std::lock_guard<std::mutex> lock(mu_);
  return num_plans_;
}

Tensor Session::SessionVariable(const Node& node) {
  std::string name = node.attr(VarHandleAttrs::kSharedName);
  if (name.empty()) name = node.name();
  Tensor& handle = variables_[name];
  if (!handle.defined()) {
    auto variable = std::make_shared<VariableResource>();
    variable->name = name;
    variable->dtype = node.attr(VarHandleAttrs::kDtype);
    variable->shape = node.attr(VarHandleAttrs::kShape);
    handle = MakeResourceTensor(std::move(variable), node.placement());
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

// Note [Optimizing per signature]: the passes may fold, merge and fuse anything but what the
// signature names, so each signature gets its own copy of the graph. A fed output is cut off
// first: its consumers read a new Placeholder instead (and a fetch of it returns the fed value),
// so no pass folds through a value the caller will replace. Fetched and target nodes are kept
// (Note [Rewriting graphs] in graph.cc: they keep their names and outputs), so the signature's
// outputs map from the user's graph to the copy by node id.
absl::StatusOr<std::unique_ptr<Session::Compiled>> Session::Compile(
    const std::vector<NodeOutput>& feeds, const std::vector<Shape>& feed_shapes,
    const std::vector<NodeOutput>& fetches, const std::vector<const Node*>& targets) {
  auto compiled = std::make_unique<Compiled>();
  std::vector<const Node*> copy_of;
  compiled->graph = graph_.Copy(&copy_of);
  Graph& graph = compiled->graph;
  auto map = [&](NodeOutput out) { return NodeOutput{copy_of[out.node->id()], out.index}; };
  absl::flat_hash_set<const Node*> keep;
  std::vector<NodeOutput> feed_outputs;
  for (size_t i = 0; i < feeds.size(); ++i) {
    const NodeOutput& feed = feeds[i];
    const NodeOutput original = map(feed);
    NodeOutput fed = original;
    const Shape& shape = feed_shapes.empty() ? feed.node->output_shape(feed.index) : feed_shapes[i];
    if (!kPlaceholderOp.is(feed.node->op()) || shape != feed.node->output_shape(feed.index)) {
      NodeSpec spec = NodeSpec::Placeholder(feed.node->output_dtype(feed.index), shape);
      spec.device = original.node->device();
      spec.location = original.node->location();
      DUET_ASSIGN_OR_RETURN(const Node* placeholder,
                            AddNamed(graph, std::move(spec), Node::EdgeName(feed) + "/fed"));
      fed = {placeholder, 0};
      graph.ReplaceUses(original, fed);
    }
    keep.insert(fed.node);
    feed_outputs.push_back(fed);
  }
  std::vector<NodeOutput> fetch_outputs;
  for (const NodeOutput& fetch : fetches) {
    auto fed = std::find(feeds.begin(), feeds.end(), fetch);
    fetch_outputs.push_back(fed != feeds.end() ? feed_outputs[fed - feeds.begin()] : map(fetch));
    keep.insert(fetch_outputs.back().node);
  }
  std::vector<const Node*> target_nodes;
  for (const Node* target : targets) {
    target_nodes.push_back(copy_of[target->id()]);
    keep.insert(target_nodes.back());
  }
  if (!feed_shapes.empty()) DUET_RETURN_IF_ERROR(RefineShapes(graph));
  if (options_.optimize) {
    DUET_ASSIGN_OR_RETURN(compiled->passes,
                          OptimizeKeeping(graph, options_.passes, std::move(keep)));
  }
  DUET_RETURN_IF_ERROR(InsertDeviceCopies(graph).status());
  DUET_ASSIGN_OR_RETURN(compiled->plan,
                        Plan::Compile(graph, feed_outputs, fetch_outputs, target_nodes,
                                      [this](const Node& node) { return SessionVariable(node); }));
  return compiled;
}

// Note [Specializing to fed shapes]: a frozen model's placeholders usually leave the batch
// unknown, and so does everything computed from them, which keeps the shape-dependent passes
// from firing: elementwise fusion needs static shapes, and the Shape/StridedSlice/Pack chains
// Keras writes for reshapes fold only when the shapes are known. The session knows more: the
// values fed. So the first runs of a signature each compile a plan for the shapes fed (the copy's
// placeholders get them, and RefineShapes carries them through the graph before the passes run),
// kept with those shapes as a key. A workload feeding ever-new shapes would compile without end,
// so after kMaxSpecializations shape sets the others share one general plan, compiled as before.
// Feeds whose placeholders are fully defined are never specialized: their shape is checked.
namespace {

constexpr size_t kMaxSpecializations = 4;

// The shapes to specialize a signature to: one per feed, or none when there is nothing to learn
// (every fed endpoint's shape is fully defined already).
std::vector<Shape> SpecializedShapes(const std::vector<NodeOutput>& feeds,
                                     const std::vector<Tensor>& values) {
  bool learns = false;
  for (const NodeOutput& feed : feeds) {
    learns |= !feed.node->output_shape(feed.index).is_fully_defined();
  }
  if (!learns) return {};
  std::vector<Shape> shapes;
  shapes.reserve(values.size());
  for (const Tensor& value : values) shapes.push_back(value.shape());
  return shapes;
}

}  // namespace

absl::StatusOr<Session::Compiled*> Session::CompiledFor(const std::vector<NodeOutput>& feeds,
                                                        const std::vector<Tensor>* values,
                                                        const std::vector<NodeOutput>& fetches,
                                                        const std::vector<const Node*>& targets) {
  Signature key = SignatureOf(feeds, fetches, targets);
  std::vector<Shape> shapes;
  if (values != nullptr && options_.specialize_shapes) shapes = SpecializedShapes(feeds, *values);
  std::lock_guard<std::mutex> lock(mu_);
  if (renumberings_ != graph_.renumberings()) {  // optimize() renumbered the user's graph
    plans_.clear();
    renumberings_ = graph_.renumberings();
  }
  SignaturePlans& plans = plans_[std::move(key)];
  if (values == nullptr && plans.last != nullptr) return plans.last;
  if (!shapes.empty()) {
    for (const auto& [specialized, compiled] : plans.specialized) {
      if (specialized == shapes) return plans.last = compiled.get();
    }
    if (plans.specialized.size() < kMaxSpecializations) {
      DUET_ASSIGN_OR_RETURN(std::unique_ptr<Compiled> compiled,
                            Compile(feeds, shapes, fetches, targets));
      ++num_plans_;
      plans.specialized.emplace_back(std::move(shapes), std::move(compiled));
      return plans.last = plans.specialized.back().second.get();
    }
  }
  if (plans.general == nullptr) {
    DUET_ASSIGN_OR_RETURN(plans.general, Compile(feeds, {}, fetches, targets));
    ++num_plans_;
  }
  return plans.last = plans.general.get();
}

absl::StatusOr<Session::Compiled*> Session::ResolvePlan(const std::vector<NodeOutput>& feeds,
                                                        const std::vector<Tensor>* values,
                                                        const std::vector<GraphTensor>& fetches,
                                                        const std::vector<GraphTensor>& targets) {
  DUET_ASSIGN_OR_RETURN(const std::vector<NodeOutput> fetch_outputs, ResolveAll(graph_, fetches));
  std::vector<const Node*> target_nodes;
  target_nodes.reserve(targets.size());
  for (const GraphTensor& target : targets) {
    DUET_ASSIGN_OR_RETURN(const Node* node, target.ResolveNode(graph_));
    target_nodes.push_back(node);
  }
  return CompiledFor(feeds, values, fetch_outputs, target_nodes);
}

absl::StatusOr<std::vector<Tensor>> Session::TryRun(const FeedList& feeds,
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
  for (size_t i = 0; i < feeds.size(); ++i) {
    DUET_RETURN_IF_ERROR(CheckFeed(feed_outputs[i], values[i]));
  }
  DUET_ASSIGN_OR_RETURN(Compiled * compiled, ResolvePlan(feed_outputs, &values, fetches, targets));
  return compiled->plan->Run(values);
}

Session::PlanInfo Session::plan_info(const std::vector<GraphTensor>& feeds,
                                     const std::vector<GraphTensor>& fetches,
                                     const std::vector<GraphTensor>& targets) {
  absl::StatusOr<std::vector<NodeOutput>> feed_outputs = ResolveAll(graph_, feeds);
  if (!feed_outputs.ok()) throw Error(feed_outputs.status());
  absl::StatusOr<Compiled*> compiled = ResolvePlan(*feed_outputs, nullptr, fetches, targets);
  if (!compiled.ok()) throw Error(compiled.status());
  const Plan& plan = *(*compiled)->plan;
  return {plan.num_steps(), plan.last_run_static(), plan.arena_bytes(), (*compiled)->passes};
}

std::vector<Tensor> Session::run(const FeedList& feeds, const std::vector<GraphTensor>& fetches,
                                 const std::vector<GraphTensor>& targets) {
  absl::StatusOr<std::vector<Tensor>> results = TryRun(feeds, fetches, targets);
  if (!results.ok()) {
    throw Error(absl::Status(results.status().code(),
                             absl::StrCat("Session::run: ", results.status().message())));
  }
  return *std::move(results);
}

}  // namespace duet
