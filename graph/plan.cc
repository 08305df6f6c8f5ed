#include "graph/plan.h"

#include <algorithm>
#include <queue>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/resource.h"
#include "graph/graph_ops.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "ops/shape_context.h"

namespace duet {

// Shapes and the arena layout for one set of feed shapes (Note [Static plans]).
struct Plan::Layout {
  // One step of a static run: which inputs it reads from slots filled during the run, and which
  // of those slots it reads last (freed after it).
  struct RunStep {
    int step = 0;
    std::vector<int> dynamic_inputs;  // input positions, copied from their slots
    std::vector<int> handed_inputs;   // input positions moved out of slots that die here
    std::vector<int> release;         // slots
    uint32_t scratch_inputs = 0;      // bit j: input j may be overwritten (Note [Scratch inputs])
  };
  std::vector<Shape> feed_shapes;
  bool is_static = false;
  std::vector<Shape> shapes;          // per slot
  std::vector<Tensor> values;         // per slot: constants and folded values; else undefined
  std::vector<int64_t> arena_offset;  // per slot; -1: not in the arena
  int64_t arena_bytes = 0;
  std::vector<char> persistent;  // per slot: the frame's own tensor every run
  std::vector<RunStep> run;      // the steps a static run executes (none folded), in order
};

// When each slot is made and last read among the steps a static run executes, by position in
// that run (folded steps neither make nor read anything at run time).
struct Plan::Liveness {
  std::vector<int> run;            // steps, in order
  std::vector<int> made;           // per slot: its producer's position, or -1
  std::vector<int> last_read;      // per slot: its last reader's position, or -1
  std::vector<char> pure_readers;  // per slot: no reader keeps or aliases it
};

// The state of one run: value slots, each step's call and outputs. Reused across runs.
struct Plan::Frame {
  std::shared_ptr<const Layout> layout;  // null: dynamic
  Tensor arena;
  std::vector<Tensor> slots;
  std::vector<OpCall> calls;
  std::vector<OutputList> outputs;
};

namespace {

constexpr int64_t kArenaAlignment = 64;

struct NodeOutputHash {
  size_t operator()(const NodeOutput& o) const { return absl::HashOf(o.node, o.index); }
};
using SlotMap = absl::flat_hash_map<NodeOutput, int, NodeOutputHash>;

std::string Describe(const Node& node) {
  const std::string source = node.source();
  return absl::StrCat(node.op().name, " node '", node.name(), "'",
                      source.empty() ? "" : absl::StrCat(" (made at ", source, ")"));
}

// The nodes the fetches and targets need, in a topological order; fed outputs cut the graph.
absl::StatusOr<std::vector<const Node*>> NeededNodes(const Graph& graph, const SlotMap& fed,
                                                     const std::vector<NodeOutput>& fetches,
                                                     const std::vector<const Node*>& targets) {
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
  // Of the ready nodes, the one made first runs first: program order where the dependencies
  // allow it. (First in, first out would start every independent chain before finishing any, and
  // keep all their intermediate values alive at once: a traced RevNet backward pass rebuilt every
  // block's inputs before the first block's gradients.)
  auto later = [](const Node* a, const Node* b) { return a->id() > b->id(); };
  std::priority_queue<const Node*, std::vector<const Node*>, decltype(later)> ready(later);
  for (const Node* node : nodes) {
    if (pending[node->id()] == 0) ready.push(node);
  }
  std::vector<const Node*> order;
  order.reserve(nodes.size());
  while (!ready.empty()) {
    const Node* node = ready.top();
    ready.pop();
    order.push_back(node);
    for (const Node* consumer : consumers[node->id()]) {
      if (--pending[consumer->id()] == 0) ready.push(consumer);
    }
  }
  for (const Node* node : nodes) {
    if (pending[node->id()] > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("the graph has a cycle through ", Describe(*node)));
    }
  }
  return order;
}

int64_t Aligned(int64_t bytes) {
  return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

// What a layout depends on of a feed: its shape, or for a fed variable handle (a function's
// captured variable) the variable's shape, which the reads' shapes come from.
const Shape& FeedShape(const Tensor& feed) {
  if (feed.dtype() == kResource) {
    if (const VariableResource* variable = VariableOf(feed)) return variable->shape;
  }
  return feed.shape();
}

bool SameShapes(const std::vector<Tensor>& feeds, const std::vector<Shape>& shapes) {
  if (feeds.size() != shapes.size()) return false;
  for (size_t i = 0; i < feeds.size(); ++i) {
    if (FeedShape(feeds[i]) != shapes[i]) return false;
  }
  return true;
}

// A view of `bytes` of the arena at `offset`, of `dtype` and `shape`.
Tensor ArenaView(const Tensor& arena, int64_t offset, DType dtype, const Shape& shape) {
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = dtype;
  impl->shape = shape;
  impl->device = arena.device();
  impl->data = static_cast<char*>(arena.raw_data()) + offset;
  impl->base = arena.impl();
  return Tensor(std::move(impl));
}

// Note [Values known from shapes]: graphs compute small values from shapes. The gradient of
// Mean divides by Size(x) and broadcasts to Shape(x); user code writes reshape(y, shape(x)).
// gradients() must build them as ops because a dim may be unknown when the graph is made, but
// once the feed shapes are known they are constants. Without them, shape functions downstream
// (BroadcastTo's, Reshape's) could not infer static shapes and every training step would run
// dynamically. So layout building runs, once per layout, every pure step whose inputs are known
// (constants, or values folded before it) or which reads only its inputs' shapes, when its
// outputs are small (kMaxFoldedBytes: shape vectors and scalars, not data, since folded values
// stay resident with the layout). Static runs skip those steps. A step whose kernel fails here
// is left to run, and the run reports the error as it would have.
constexpr int64_t kMaxFoldedBytes = 4096;

// A kernel's error, annotated with the node's op, inputs and line, and the lines of the nodes a
// pass fused into it (the user wrote those ops, not the fused one).
absl::Status StepError(const PlanStep& step, const OpCall& call, const absl::Status& status) {
  const absl::Status annotated = AnnotateOpError(call, status);
  const std::vector<std::string>& fused = step.node->fused_sources();
  if (fused.empty()) return annotated;
  return absl::Status(annotated.code(),
                      absl::StrCat(annotated.message(), " (fused from the ops at ",
                                   absl::StrJoin(fused, ", "), ")"));
}

// Note [Device checks] (kernels/kernel_registry.h), with the devices the step compiled.
absl::Status CheckDevices(const PlanStep& step, const OpCall& call) {
  if (!kernel_internal::DeviceChecksOn()) return absl::OkStatus();
  for (size_t j = 0; j < step.input_devices.size(); ++j) {
    const std::optional<Device>& want = step.input_devices[j];
    if (!want.has_value() || !call.inputs[j].defined() || call.inputs[j].device() == *want) {
      continue;
    }
    return StepError(
        step, call,
        InputDeviceError(call, static_cast<int>(j), call.inputs[j].device(), *want, step.device));
  }
  return absl::OkStatus();
}

// The device a node runs on, which must be present.
absl::StatusOr<Device> PresentDevice(const Node& node) {
  const Device device = node.placement();
  if (!device_present(device)) {
    return absl::FailedPreconditionError(absl::StrCat(
        Describe(node), " is placed on ", node.device(), ", which is not present on this machine"));
  }
  return device;
}

}  // namespace

Plan::~Plan() = default;

absl::StatusOr<std::unique_ptr<Plan>> Plan::Compile(
    const Graph& graph, const std::vector<NodeOutput>& feeds,
    const std::vector<NodeOutput>& fetches, const std::vector<const Node*>& targets,
    absl::FunctionRef<Tensor(const Node&)> variable_state) {
  auto plan = std::unique_ptr<Plan>(new Plan);
  SlotMap slot_of;
  auto add_slot = [&](DType dtype, int producer) {
    plan->slot_dtypes_.push_back(dtype);
    plan->producer_.push_back(producer);
    return plan->num_slots_++;
  };
  for (const NodeOutput& feed : feeds) {
    const int slot = add_slot(feed.node->output_dtype(feed.index), -1);
    if (!slot_of.try_emplace(feed, slot).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", Node::EdgeName(feed), "' is fed more than once"));
    }
    plan->feed_slots_.push_back(slot);
    DUET_ASSIGN_OR_RETURN(const Device device, PresentDevice(*feed.node));
    plan->feed_devices_.push_back(device);
  }
  DUET_ASSIGN_OR_RETURN(std::vector<const Node*> order,
                        NeededNodes(graph, slot_of, fetches, targets));
  plan->steps_.reserve(order.size());  // an OpCall is ~400 bytes: no growth slack
  plan->calls_.reserve(order.size());
  for (const Node* node : order) {
    const int step_index = static_cast<int>(plan->steps_.size());
    const Tensor* bound = node->bound_value();
    const bool variable = bound == nullptr && kVarHandleOp.is(node->op());
    const bool constant = bound != nullptr || variable;
    PlanStep step;
    step.node = node;
    DUET_ASSIGN_OR_RETURN(step.device, PresentDevice(*node));
    step.output_slot = plan->num_slots_;
    for (int i = 0; i < node->num_outputs(); ++i) {
      const int slot = add_slot(node->output_dtype(i), constant ? -1 : step_index);
      slot_of.try_emplace(NodeOutput{node, i}, slot);
    }
    if (constant) {
      DUET_ASSIGN_OR_RETURN(Tensor value,
                            CopiedTo(bound ? *bound : variable_state(*node), step.device));
      plan->constants_.emplace_back(step.output_slot, std::move(value));
      continue;
    }
    if (kPlaceholderOp.is(node->op())) {
      return absl::InvalidArgumentError(
          absl::StrCat(Describe(*node), " must be fed: give it a value in Session::run's feeds"));
    }
    for (const NodeOutput& in : node->inputs()) step.input_slots.push_back(slot_of.at(in));
    OpCall call(&node->op(), TensorList(node->inputs().size()),
                OpSite(node->name(), node->location()));
    call.attrs = node->attrs();
    step.kernel = FindKernel(node->op(), step.device.type(), DispatchDType(call));
    if (step.kernel == nullptr) {
      const absl::Status missing =
          NoKernelError(node->op(), step.device.type(), DispatchDType(call));
      return absl::Status(missing.code(), absl::StrCat(Describe(*node), ": ", missing.message()));
    }
    const HostInputs host_inputs(call);
    for (int j = 0; j < static_cast<int>(node->inputs().size()); ++j) {
      const NodeOutput& in = node->inputs()[j];
      step.input_devices.push_back(RequiredInputDevice(
          node->op(), host_inputs, j, in.node->output_dtype(in.index), step.device));
    }
    step.keeps_inputs =
        (node->op().stateful && !node->op().keeps_no_inputs) || step.kernel->allocates_outputs;
    step.reads_only_shapes = node->op().reads_only_input_shapes;
    plan->steps_.push_back(std::move(step));
    plan->calls_.push_back(std::move(call));
  }
  for (const NodeOutput& fetch : fetches) plan->fetch_slots_.push_back(slot_of.at(fetch));

  plan->fetched_.assign(plan->num_slots_, 0);
  for (int slot : plan->fetch_slots_) plan->fetched_[slot] = 1;
  plan->ScheduleDynamic();
  return plan;
}

// Liveness for dynamic runs: a slot is freed after its last reader, or right after its producer
// when nothing reads it; fetched slots live to the end of the run, constants as long as the frame.
void Plan::ScheduleDynamic() {
  std::vector<int> last_reader(num_slots_, -1);
  for (int s = 0; s < num_steps(); ++s) {
    for (int slot : steps_[s].input_slots) last_reader[slot] = s;
  }
  std::vector<char> constant(num_slots_, 0);
  for (const auto& [slot, value] : constants_) constant[slot] = 1;
  for (int slot = 0; slot < num_slots_; ++slot) {
    if (fetched_[slot] || constant[slot]) continue;
    const int when = last_reader[slot] >= 0 ? last_reader[slot] : producer_[slot];
    if (when >= 0) steps_[when].release.push_back(slot);
  }
}

std::shared_ptr<const Plan::Layout> Plan::BuildLayout(const std::vector<Tensor>& feeds) const {
  auto layout = std::make_shared<Layout>();
  for (const Tensor& feed : feeds) layout->feed_shapes.push_back(FeedShape(feed));
  if (!InferStaticShapes(feeds, *layout)) return layout;
  const Liveness live = StaticLiveness(*layout);
  PlaceArena(live, *layout);
  ScheduleStatic(live, *layout);
  layout->is_static = true;
  return layout;
}

// Shape inference from the feed shapes alone: fed values stay unknown, so a shape that depends on
// one comes out unknown and the layout is not static (false). Values the shapes determine are
// folded on the way (Note [Values known from shapes]).
bool Plan::InferStaticShapes(const std::vector<Tensor>& feeds, Layout& layout) const {
  layout.shapes.resize(num_slots_);
  layout.values.resize(num_slots_);
  // Fed variable handles are known to shape functions (a read's shape is its variable's; the
  // layout is keyed on it, FeedShape); other fed values are not.
  absl::flat_hash_map<int, Tensor> fed_handles;
  for (size_t i = 0; i < feeds.size(); ++i) {
    layout.shapes[feed_slots_[i]] = feeds[i].shape();
    if (feeds[i].dtype() == kResource) fed_handles[feed_slots_[i]] = feeds[i];
  }
  for (const auto& [slot, value] : constants_) {
    layout.shapes[slot] = value.shape();
    layout.values[slot] = value;
  }
  for (int s = 0; s < num_steps(); ++s) {
    const PlanStep& step = steps_[s];
    OpCall call = calls_[s];
    for (size_t j = 0; j < step.input_slots.size(); ++j) {
      const int slot = step.input_slots[j];
      const Tensor& value = layout.values[slot];
      const auto handle = fed_handles.find(slot);
      call.inputs[j] = value.defined() ? value
                       : handle != fed_handles.end()
                           ? handle->second
                           : ShapeOnly(slot_dtypes_[slot], layout.shapes[slot]);
    }
    ShapeContext shapes(call);
    if (!InferShapes(shapes).ok()) return false;  // the dynamic run reports the error
    for (int k = 0; k < shapes.num_outputs(); ++k) {
      if (!shapes.output(k).shape.is_fully_defined()) return false;
      layout.shapes[step.output_slot + k] = shapes.output(k).shape;
    }
    if (Foldable(step, layout)) Fold(step, call, layout);
  }
  return true;
}

// Note [Values known from shapes].
bool Plan::Foldable(const PlanStep& step, const Layout& layout) const {
  if (step.node->op().stateful || step.node->num_outputs() == 0) return false;
  if (!step.device.is_host()) return false;  // folded values are host tensors
  for (int k = 0; k < step.node->num_outputs(); ++k) {
    const int slot = step.output_slot + k;
    const int64_t bytes = layout.shapes[slot].num_elements() * DTypeSize(slot_dtypes_[slot]);
    if (IsObjectDType(slot_dtypes_[slot]) || bytes > kMaxFoldedBytes) return false;
  }
  // A handle's state may change between runs; ops that read it are stateful, but make sure.
  const auto& inputs = step.input_slots;
  if (std::any_of(inputs.begin(), inputs.end(),
                  [&](int slot) { return IsObjectDType(slot_dtypes_[slot]); })) {
    return false;
  }
  if (step.reads_only_shapes) return true;
  return std::all_of(inputs.begin(), inputs.end(),
                     [&](int slot) { return layout.values[slot].defined(); });
}

void Plan::Fold(const PlanStep& step, OpCall& call, Layout& layout) const {
  OutputList outputs(step.node->num_outputs());
  for (size_t k = 0; k < outputs.size() && !step.kernel->allocates_outputs; ++k) {
    const int slot = step.output_slot + static_cast<int>(k);
    absl::StatusOr<Tensor> out = Tensor::TryEmpty(slot_dtypes_[slot], layout.shapes[slot]);
    if (!out.ok()) return;
    outputs[k] = *std::move(out);
  }
  if (!CheckDevices(step, call).ok()) return;  // the run reports it
  KernelContext ctx(call, outputs, Device::cpu());
  if (!step.kernel->fn(ctx).ok()) return;
  for (const Tensor& out : outputs) {
    if (!out.has_value()) return;
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    layout.values[step.output_slot + k] = std::move(outputs[k]);
  }
}

Plan::Liveness Plan::StaticLiveness(const Layout& layout) const {
  Liveness live;
  live.made.assign(num_slots_, -1);
  live.last_read.assign(num_slots_, -1);
  live.pure_readers.assign(num_slots_, 1);
  for (int s = 0; s < num_steps(); ++s) {
    const PlanStep& step = steps_[s];
    const bool folded = step.node->num_outputs() > 0 && layout.values[step.output_slot].defined();
    if (folded) continue;
    const int at = static_cast<int>(live.run.size());
    live.run.push_back(s);
    for (int k = 0; k < step.node->num_outputs(); ++k) live.made[step.output_slot + k] = at;
    for (int slot : step.input_slots) {
      live.last_read[slot] = at;
      if (step.keeps_inputs) live.pure_readers[slot] = 0;
    }
  }
  return live;
}

namespace {

// Where values share the arena: steps [begin, end] of a static run, `bytes` at `offset`.
struct ArenaInterval {
  int begin, end;
  int64_t bytes;
  int64_t offset = 0;
};

// Note [In-place outputs]: a kernel that may write its output over one input
// (KernelDef::in_place_input: the fused convolutions add a residual with oneDNN's sum post-op,
// which reads dst) gets both in one buffer when the input is an arena value the step reads last,
// through that input alone, and the output one of the same size: the output's interval joins the
// input's (which may itself hold earlier in-place values), so no other value is placed there
// between the input's making and the output's last read. As for scratch inputs (below), nothing
// else sees the input's buffer by then. Elsewhere (eager, dynamic runs) the kernel copies the
// input into its output first.
void ShareInPlaceOutputs(const std::vector<PlanStep>& steps, const std::vector<int>& run,
                         const std::vector<int>& last_read, std::vector<ArenaInterval>& intervals,
                         std::vector<int>& interval_of) {
  for (int at = 0; at < static_cast<int>(run.size()); ++at) {
    const PlanStep& step = steps[run[at]];
    const int k = step.kernel->in_place_input;
    if (k < 0 || k >= static_cast<int>(step.input_slots.size())) continue;
    const int in = step.input_slots[k], out = step.output_slot;
    if (interval_of[in] < 0 || interval_of[out] < 0 || last_read[in] != at ||
        std::count(step.input_slots.begin(), step.input_slots.end(), in) != 1) {
      continue;
    }
    ArenaInterval& shared = intervals[interval_of[in]];
    ArenaInterval& own = intervals[interval_of[out]];
    if (shared.bytes != own.bytes) continue;
    shared.end = std::max(shared.end, own.end);
    own.bytes = 0;
    interval_of[out] = interval_of[in];
  }
}

}  // namespace

// The arena: slots that only pure kernels read, made by non-view kernels and not fetched. Greedy
// first fit, largest first, among intervals whose lifetimes [made, last read] overlap; an in-place
// output shares its input's interval (Note [In-place outputs]).
void Plan::PlaceArena(const Liveness& live, Layout& layout) const {
  std::vector<ArenaInterval> intervals;
  std::vector<int> interval_of(num_slots_, -1);
  for (int slot = 0; slot < num_slots_; ++slot) {
    const int made = live.made[slot];
    // Strings hold objects the arena would not construct: they get tensors of their own (Note
    // [String tensors] in core/tensor.cc), and so never share a buffer in place or as scratch.
    if (made < 0 || fetched_[slot] || !live.pure_readers[slot] ||
        IsObjectDType(slot_dtypes_[slot]) || slot_dtypes_[slot] == kString) {
      continue;
    }
    const PlanStep& maker = steps_[live.run[made]];
    if (maker.kernel->allocates_outputs || !maker.device.is_host()) continue;
    const int64_t bytes = layout.shapes[slot].num_elements() * DTypeSize(slot_dtypes_[slot]);
    interval_of[slot] = static_cast<int>(intervals.size());
    intervals.push_back({made, std::max(made, live.last_read[slot]), Aligned(bytes)});
  }
  ShareInPlaceOutputs(steps_, live.run, live.last_read, intervals, interval_of);
  std::vector<ArenaInterval*> order;
  for (ArenaInterval& interval : intervals) {
    if (interval.bytes > 0) order.push_back(&interval);  // merged ones have no bytes left
  }
  std::sort(order.begin(), order.end(), [](const ArenaInterval* a, const ArenaInterval* b) {
    return a->bytes != b->bytes ? a->bytes > b->bytes : a->begin < b->begin;
  });
  std::vector<const ArenaInterval*> placed;
  for (ArenaInterval* interval : order) {
    // Offsets taken by placed intervals alive at the same time, in address order.
    std::vector<std::pair<int64_t, int64_t>> taken;
    for (const ArenaInterval* other : placed) {
      if (other->begin <= interval->end && interval->begin <= other->end) {
        taken.emplace_back(other->offset, other->offset + other->bytes);
      }
    }
    std::sort(taken.begin(), taken.end());
    int64_t offset = 0;
    for (const auto& [begin, end] : taken) {
      if (offset + interval->bytes <= begin) break;
      offset = std::max(offset, end);
    }
    interval->offset = offset;
    layout.arena_bytes = std::max(layout.arena_bytes, offset + interval->bytes);
    placed.push_back(interval);
  }
  layout.arena_offset.assign(num_slots_, -1);
  for (int slot = 0; slot < num_slots_; ++slot) {
    if (interval_of[slot] >= 0) layout.arena_offset[slot] = intervals[interval_of[slot]].offset;
  }
}

// Note [Scratch inputs]: an arena value that a step reads last, through one input, is dead once
// the step has read it, so the step's kernel may overwrite it (KernelContext::may_overwrite_input)
// instead of allocating a scratch buffer of its own: the fused gradient update scales its smaller
// operand in place this way. Nothing else can see the buffer: arena values are never fed, fetched,
// kept or viewed (PlaceArena), steps run one after another, the slots sharing its offset live at
// other times, and the next run recomputes it. Dynamic runs do not say so (their values may be
// fed or shared), nor eager execution (callers keep their tensors).
namespace {

uint32_t ScratchInputs(const std::vector<int>& input_slots, int at,
                       const std::vector<int>& last_read,
                       const std::vector<int64_t>& arena_offset) {
  uint32_t mask = 0;
  for (size_t j = 0; j < input_slots.size() && j < 32; ++j) {
    const int slot = input_slots[j];
    const bool read_once_here =
        std::count(input_slots.begin(), input_slots.end(), slot) == 1 && last_read[slot] == at;
    if (read_once_here && arena_offset[slot] >= 0) mask |= uint32_t{1} << j;
  }
  return mask;
}

}  // namespace

// Which slots keep the frame's own tensor (constants, folded values, the arena), and for each
// step that runs, the inputs refilled each run, those it may overwrite and the slots freed after
// it.
//
// Note [Inputs handed over]: a value that a step reads last (once, and unfetched) is moved from
// its slot into the step's inputs rather than copied, and a plan's feeds are moved into their
// slots; with a caller that hands its arguments over too (FunctionBody::CallOwned, as a While
// loop passes its loop variables), the kernel then holds the only reference to such a value, so
// it may reuse it: a TensorList kernel appends to a list that nothing else holds instead of
// copying it (Note [Lists updated in place] in kernels/cpu/list/tensor_list_kernels.cc), which
// makes a loop's pushes and pops O(1) instead of O(length).
void Plan::ScheduleStatic(const Liveness& live, Layout& layout) const {
  layout.persistent.assign(num_slots_, 0);
  for (int slot = 0; slot < num_slots_; ++slot) {
    layout.persistent[slot] = layout.values[slot].defined() || layout.arena_offset[slot] >= 0;
  }
  layout.run.resize(live.run.size());
  for (size_t at = 0; at < live.run.size(); ++at) {
    Layout::RunStep& run = layout.run[at];
    run.step = live.run[at];
    const std::vector<int>& inputs = steps_[run.step].input_slots;
    for (size_t j = 0; j < inputs.size(); ++j) {
      const int slot = inputs[j];
      if (layout.persistent[slot]) continue;
      // Note [Inputs handed over]: a value this step reads last, once, and nothing fetches.
      const bool dies_here = live.last_read[slot] == static_cast<int>(at) && !fetched_[slot] &&
                             std::count(inputs.begin(), inputs.end(), slot) == 1;
      (dies_here ? run.handed_inputs : run.dynamic_inputs).push_back(static_cast<int>(j));
    }
    run.scratch_inputs =
        ScratchInputs(inputs, static_cast<int>(at), live.last_read, layout.arena_offset);
  }
  for (int slot = 0; slot < num_slots_; ++slot) {
    if (layout.persistent[slot] || fetched_[slot]) continue;
    const int when = live.last_read[slot] >= 0 ? live.last_read[slot] : live.made[slot];
    if (when >= 0) layout.run[when].release.push_back(slot);
  }
}

// One critical section on the common path: the current layout, if the feed shapes match it, and
// a pooled frame made for it. Nothing runs under mu_ (Note [No lock while running]).
std::unique_ptr<Plan::Frame> Plan::AcquireFrame(const std::vector<Tensor>& feeds) {
  std::shared_ptr<const Layout> layout;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (layout_ != nullptr && SameShapes(feeds, layout_->feed_shapes)) {
      layout = layout_;
      for (auto it = free_frames_.begin(); it != free_frames_.end(); ++it) {
        const bool fits = layout->is_static ? (*it)->layout == layout : (*it)->layout == nullptr;
        if (!fits) continue;
        std::unique_ptr<Frame> frame = std::move(*it);
        free_frames_.erase(it);
        return frame;
      }
    }
  }
  if (layout == nullptr) {
    layout = BuildLayout(feeds);
    std::lock_guard<std::mutex> lock(mu_);
    layout_ = layout;
  }
  return MakeFrame(layout);
}

std::unique_ptr<Plan::Frame> Plan::MakeFrame(const std::shared_ptr<const Layout>& layout) const {
  auto frame = std::make_unique<Frame>();
  frame->slots.resize(num_slots_);
  frame->calls = calls_;
  frame->outputs.resize(num_steps());
  for (int s = 0; s < num_steps(); ++s) frame->outputs[s].resize(steps_[s].node->num_outputs());
  for (const auto& [slot, value] : constants_) frame->slots[slot] = value;
  if (!layout->is_static) return frame;
  frame->layout = layout;
  if (layout->arena_bytes > 0) {
    frame->arena = Tensor::Empty(kFloat32, Shape({layout->arena_bytes / 4}), Device::cpu());
  }
  for (int slot = 0; slot < num_slots_; ++slot) {
    if (layout->values[slot].defined()) frame->slots[slot] = layout->values[slot];
    if (layout->arena_offset[slot] < 0) continue;
    frame->slots[slot] = ArenaView(frame->arena, layout->arena_offset[slot], slot_dtypes_[slot],
                                   layout->shapes[slot]);
  }
  // Wire each step's persistent inputs and outputs to the frame's own tensors, once.
  for (const Layout::RunStep& run : layout->run) {
    const PlanStep& step = steps_[run.step];
    for (size_t j = 0; j < step.input_slots.size(); ++j) {
      if (layout->persistent[step.input_slots[j]]) {
        frame->calls[run.step].inputs[j] = frame->slots[step.input_slots[j]];
      }
    }
    for (size_t k = 0; k < frame->outputs[run.step].size(); ++k) {
      const int slot = step.output_slot + static_cast<int>(k);
      if (layout->arena_offset[slot] >= 0) frame->outputs[run.step][k] = frame->slots[slot];
    }
  }
  return frame;
}

void Plan::ReleaseFrame(std::unique_ptr<Frame> frame, bool ran_static, bool reusable) {
  std::lock_guard<std::mutex> lock(mu_);
  last_run_static_ = ran_static;
  if (!reusable) return;
  if (frame->layout != nullptr && frame->layout != layout_) return;  // stale layout: drop it
  free_frames_.push_back(std::move(frame));
}

absl::Status Plan::RunStatic(Frame& frame) {
  const Layout& layout = *frame.layout;
  std::vector<Tensor>& slots = frame.slots;
  for (const Layout::RunStep& run : layout.run) {
    const PlanStep& step = steps_[run.step];
    OpCall& call = frame.calls[run.step];
    for (int j : run.dynamic_inputs) call.inputs[j] = slots[step.input_slots[j]];
    for (int j : run.handed_inputs) call.inputs[j] = std::move(slots[step.input_slots[j]]);
    DUET_RETURN_IF_ERROR(CheckDevices(step, call));
    OutputList& outputs = frame.outputs[run.step];
    if (!step.kernel->allocates_outputs) {
      for (size_t k = 0; k < outputs.size(); ++k) {
        const int slot = step.output_slot + static_cast<int>(k);
        if (layout.persistent[slot]) continue;
        DUET_ASSIGN_OR_RETURN(
            outputs[k], Tensor::TryEmpty(slot_dtypes_[slot], layout.shapes[slot], step.device));
      }
    }
    KernelContext ctx(call, outputs, step.device, run.scratch_inputs);
    absl::Status status = step.kernel->fn(ctx);
    if (status.ok() && step.kernel->allocates_outputs) {
      status = CheckOutputDevices(call, outputs, step.device);
    }
    if (!status.ok()) return StepError(step, call, status);
    for (size_t k = 0; k < outputs.size(); ++k) {
      const int slot = step.output_slot + static_cast<int>(k);
      if (!layout.persistent[slot]) slots[slot] = std::move(outputs[k]);
    }
    for (int j : run.dynamic_inputs) call.inputs[j] = Tensor();
    for (int j : run.handed_inputs) call.inputs[j] = Tensor();
    for (int slot : run.release) slots[slot] = Tensor();
  }
  return absl::OkStatus();
}

absl::Status Plan::RunDynamic(Frame& frame) {
  std::vector<Tensor>& slots = frame.slots;
  for (int s = 0; s < num_steps(); ++s) {
    const PlanStep& step = steps_[s];
    OpCall& call = frame.calls[s];
    for (size_t j = 0; j < step.input_slots.size(); ++j)
      call.inputs[j] = slots[step.input_slots[j]];
    ShapeContext shapes(call);
    absl::Status status = CheckDevices(step, call);
    if (status.ok()) status = InferShapes(shapes);
    OutputList outputs(shapes.num_outputs());
    for (int k = 0; status.ok() && !step.kernel->allocates_outputs && k < shapes.num_outputs();
         ++k) {
      absl::StatusOr<Tensor> out =
          Tensor::TryEmpty(shapes.output(k).dtype, shapes.output(k).shape, step.device);
      if (out.ok()) outputs[k] = *std::move(out);
      status = out.status();
    }
    if (status.ok()) {
      KernelContext ctx(call, outputs, step.device);
      status = step.kernel->fn(ctx);
    }
    if (status.ok() && step.kernel->allocates_outputs) {
      status = CheckOutputDevices(call, outputs, step.device);
    }
    if (!status.ok()) return StepError(step, call, status);
    for (size_t k = 0; k < outputs.size(); ++k) slots[step.output_slot + k] = std::move(outputs[k]);
    for (Tensor& input : call.inputs) input = Tensor();
    for (int slot : step.release) slots[slot] = Tensor();
  }
  return absl::OkStatus();
}

// Note [No lock while running]: Run holds mu_ only to take and return a frame, never while steps
// run. A kernel may run another plan (a branch or loop body, see docs/graph.md), or even this
// one, on this thread or on others, so a lock held across steps could deadlock; concurrent runs
// each use a frame of their own.
absl::StatusOr<std::vector<Tensor>> Plan::Run(std::vector<Tensor> feeds) {
  std::unique_ptr<Frame> frame = AcquireFrame(feeds);
  const bool ran_static = frame->layout != nullptr;
  for (size_t i = 0; i < feeds.size(); ++i) {
    absl::StatusOr<Tensor> fed = CopiedTo(feeds[i], feed_devices_[i]);
    if (!fed.ok()) {
      ReleaseFrame(std::move(frame), ran_static, /*reusable=*/false);
      return fed.status();
    }
    frame->slots[feed_slots_[i]] = *std::move(fed);
    feeds[i] = Tensor();  // the slot holds it alone (Note [Inputs handed over])
  }
  const absl::Status status = ran_static ? RunStatic(*frame) : RunDynamic(*frame);
  if (!status.ok()) {  // the frame may hold stale tensors: not reused
    ReleaseFrame(std::move(frame), ran_static, /*reusable=*/false);
    return status;
  }
  std::vector<Tensor> results;
  results.reserve(fetch_slots_.size());
  for (int slot : fetch_slots_) results.push_back(frame->slots[slot]);
  for (int slot : fetch_slots_) {
    if (!ran_static || !frame->layout->persistent[slot]) frame->slots[slot] = Tensor();
  }
  for (int slot : feed_slots_) frame->slots[slot] = Tensor();
  ReleaseFrame(std::move(frame), ran_static, /*reusable=*/true);
  return results;
}

bool Plan::last_run_static() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_run_static_;
}

int64_t Plan::arena_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return layout_ != nullptr ? layout_->arena_bytes : 0;
}

}  // namespace duet
