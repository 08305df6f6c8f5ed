// Plan: one compiled run signature of a graph (which outputs are fed, fetched, which nodes are
// targets) and its execution.
//
// Note [Static plans]: compiling prunes the graph to what the fetches and targets need, orders it
// and resolves each node's kernel and attrs once. The first run with a given set of feed shapes
// also infers every value's shape; when all are fully defined (the usual case), it lays the
// intermediate values out in one arena by liveness (values whose lifetimes do not overlap share
// memory) and every later run with those feed shapes does no shape inference, no kernel lookup
// and no allocation beyond the fetched values: each node's inputs and outputs are wired to arena
// tensors that are made once per frame (the per-run state, pooled for concurrent runs). Values a
// kernel may keep or alias (inputs of stateful or view ops, outputs of view ops) and fetched
// values stay outside the arena. Values that the feed shapes determine (Note [Values known from
// shapes] in plan.cc) are computed with the layout, and their steps do not run at all. Otherwise
// (shapes that depend on fed values) runs infer shapes step by step and allocate from the pooled
// allocator, freeing each value after its last reader. Steps on other devices than the CPU
// (after InsertDeviceCopies, Note [Device boundaries]) allocate on their device and are never
// folded or put in the arena, which is CPU memory.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "kernels/kernel_registry.h"

namespace duet {

// One node's work: its kernel and where its inputs and outputs live (value slots).
struct PlanStep {
  const Node* node = nullptr;
  const KernelDef* kernel = nullptr;
  Device device;  // where the node runs (Node::placement)
  std::vector<int> input_slots;
  // Per input, the device it must be on (Note [Device checks]); nullopt: anywhere.
  std::vector<std::optional<Device>> input_devices;
  int output_slot = 0;        // outputs occupy output_slot .. output_slot + num_outputs - 1
  bool keeps_inputs = false;  // stateful (but a variable update) or a view: inputs may outlive it
  bool reads_only_shapes = false;  // the kernel never reads its inputs' elements (Shape, Size)
  std::vector<int> release;        // slots last read by this step (freed after it; dynamic runs)
};

class Plan {
 public:
  // Compiles what `fetches` and `targets` need when `feeds` are given (fed outputs cut the
  // graph). `variable_state` gives the state of VarHandleOp nodes made in the graph itself.
  static absl::StatusOr<std::unique_ptr<Plan>> Compile(
      const Graph& graph, const std::vector<NodeOutput>& feeds,
      const std::vector<NodeOutput>& fetches, const std::vector<const Node*>& targets,
      absl::FunctionRef<Tensor(const Node&)> variable_state);
  ~Plan();

  // Runs with the feed values (checked by the caller, in the order of Compile's feeds) and
  // returns the fetched values. Safe to call from several threads at once. A caller that moves
  // the feeds in hands them over (Note [Inputs handed over] in plan.cc).
  absl::StatusOr<std::vector<Tensor>> Run(std::vector<Tensor> feeds);

  int num_steps() const { return static_cast<int>(steps_.size()); }
  // Whether the last run used a static layout (Note [Static plans]), and its arena's size.
  bool last_run_static() const;
  int64_t arena_bytes() const;

 private:
  struct Layout;
  struct Liveness;
  struct Frame;

  Plan() = default;
  void ScheduleDynamic();
  std::shared_ptr<const Layout> BuildLayout(const std::vector<Tensor>& feeds) const;
  bool InferStaticShapes(const std::vector<Tensor>& feeds, Layout& layout) const;
  bool Foldable(const PlanStep& step, const Layout& layout) const;
  void Fold(const PlanStep& step, OpCall& call, Layout& layout) const;
  Liveness StaticLiveness(const Layout& layout) const;
  void PlaceArena(const Liveness& live, Layout& layout) const;
  void ScheduleStatic(const Liveness& live, Layout& layout) const;
  std::unique_ptr<Frame> AcquireFrame(const std::vector<Tensor>& feeds);
  std::unique_ptr<Frame> MakeFrame(const std::shared_ptr<const Layout>& layout) const;
  void ReleaseFrame(std::unique_ptr<Frame> frame, bool ran_static, bool reusable);
  absl::Status RunStatic(Frame& frame);
  absl::Status RunDynamic(Frame& frame);

  std::vector<PlanStep> steps_;
  std::vector<OpCall> calls_;  // per step: op, attrs, site (node name and line); empty inputs
  int num_slots_ = 0;
  std::vector<DType> slot_dtypes_;
  std::vector<int> feed_slots_, fetch_slots_;
  std::vector<Device> feed_devices_;               // per feed: where its readers need it
  std::vector<std::pair<int, Tensor>> constants_;  // Const, captured and session-variable nodes
  std::vector<int> producer_;                      // per slot: its step, or -1 (feed, constant)
  std::vector<char> fetched_;                      // per slot

  mutable std::mutex mu_;
  std::shared_ptr<const Layout> layout_;             // guarded by mu_: for the last feed shapes
  std::vector<std::unique_ptr<Frame>> free_frames_;  // guarded by mu_
  bool last_run_static_ = false;                     // guarded by mu_
};

}  // namespace duet
