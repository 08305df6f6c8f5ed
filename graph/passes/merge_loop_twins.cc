// Note [Merging loop twins]: a While gradient runs the forward loop once more, pushing loop
// variables onto accumulators (Note [While gradients] in graph/control_flow_grads.cc). When the
// forward While W and that accumulating twin A are in one graph with the same inputs, A's first
// outputs are W's: consumers of W read A instead and W is removed, so a traced training step runs
// the forward loop once. Not when W must keep its outputs (a fetch), nor when A depends on a
// consumer of W (rewiring would make a cycle).
#include <mutex>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "graph/graph_ops.h"
#include "graph/passes/loop_twins.h"
#include "graph/passes/passes.h"
#include "graph/passes/rewrite.h"
#include "ops/control_flow/control_flow_attrs.h"

namespace duet {
namespace {

struct Twins {
  std::mutex mu;
  absl::flat_hash_map<const FunctionBody*, std::pair<std::weak_ptr<const FunctionBody>,
                                                     std::weak_ptr<const FunctionBody>>>
      forward_of;
};

Twins& Registry() {
  static Twins* twins = new Twins;
  return *twins;
}

bool IsWhile(const Node& node) { return kWhileOp.is(node.op()) || kStatelessWhileOp.is(node.op()); }

const FunctionBody* Body(const Node& node) {
  return GetAttr(node.op(), node.attrs(), WhileAttrs::kBody).body.get();
}

// Whether `target` is among the ancestors (data and control) of `node`.
bool DependsOn(const Node* node, const absl::flat_hash_set<const Node*>& targets) {
  std::vector<const Node*> stack = {node};
  absl::flat_hash_set<const Node*> seen = {node};
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    auto visit = [&](const Node* in) {
      if (seen.insert(in).second) stack.push_back(in);
    };
    for (const NodeOutput& in : n->inputs()) visit(in.node);
    for (const Node* in : n->control_inputs()) visit(in);
    if (n != node && targets.contains(n)) return true;
  }
  return false;
}

}  // namespace

void RecordLoopTwin(const std::shared_ptr<const FunctionBody>& twin,
                    const std::shared_ptr<const FunctionBody>& forward) {
  Twins& twins = Registry();
  std::lock_guard<std::mutex> lock(twins.mu);
  // Forget entries whose bodies are gone, so the map does not grow without bound.
  absl::erase_if(twins.forward_of, [](const auto& entry) { return entry.second.first.expired(); });
  twins.forward_of[twin.get()] = {twin, forward};
}

const FunctionBody* ForwardOfLoopTwin(const FunctionBody* twin) {
  Twins& twins = Registry();
  std::lock_guard<std::mutex> lock(twins.mu);
  auto it = twins.forward_of.find(twin);
  if (it == twins.forward_of.end()) return nullptr;
  const std::shared_ptr<const FunctionBody> recorded = it->second.first.lock();
  const std::shared_ptr<const FunctionBody> forward = it->second.second.lock();
  return recorded.get() == twin ? forward.get() : nullptr;
}

absl::StatusOr<bool> MergeLoopTwins(Graph& graph, PassContext& context) {
  absl::flat_hash_map<const FunctionBody*, std::vector<const Node*>> loops;
  std::vector<std::pair<const Node*, const FunctionBody*>> twins;
  for (const Node* node : graph.nodes()) {
    if (!IsWhile(*node)) continue;
    loops[Body(*node)].push_back(node);
    if (const FunctionBody* forward = ForwardOfLoopTwin(Body(*node))) {
      twins.emplace_back(node, forward);
    }
  }
  bool changed = false;
  for (const auto& [twin, forward] : twins) {
    for (const Node* loop : loops[forward]) {
      const size_t n = loop->inputs().size();
      if (loop->removed() || context.Keeps(loop) || twin->inputs().size() < n ||
          !std::equal(loop->inputs().begin(), loop->inputs().end(), twin->inputs().begin())) {
        continue;
      }
      const UseIndex uses(graph);
      absl::flat_hash_set<const Node*> consumers;
      for (int i = 0; i < loop->num_outputs(); ++i) {
        for (const UseIndex::Use& use : uses.uses({loop, i})) consumers.insert(use.node);
      }
      for (const Node* dependent : uses.control_dependents(loop)) consumers.insert(dependent);
      if (DependsOn(twin, consumers)) continue;
      for (int i = 0; i < loop->num_outputs(); ++i) graph.ReplaceUses({loop, i}, {twin, i});
      MoveControlDependents(graph, uses, loop, twin);
      std::vector<const Node*> control;
      for (const Node* in : twin->control_inputs()) {
        if (in != loop) control.push_back(in);
      }
      for (const Node* in : loop->control_inputs()) {
        if (std::find(control.begin(), control.end(), in) == control.end()) control.push_back(in);
      }
      graph.SetControlInputs(twin, std::move(control));
      context.Fused(*twin, {ReplacedNode::Of(*loop)});
      DUET_RETURN_IF_ERROR(graph.RemoveNodes({loop}));
      context.Count("merge_loop_twins.merged");
      changed = true;
      break;
    }
  }
  return changed;
}

}  // namespace duet
