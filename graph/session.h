// Session: runs a graph. The first run of each (feeds, fetches, targets) signature compiles a
// plan (pruned, ordered, kernels resolved, buffers released by liveness); later runs reuse it.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "graph/graph.h"
#include "graph/plan.h"

namespace duet {

// A tensor of a session's graph, named by its symbolic handle or by "node" / "node:index".
class GraphTensor {
 public:
  GraphTensor(const Tensor& tensor) : tensor_(tensor) {}     // NOLINT: sess.run({{x, v}}, {y})
  GraphTensor(const char* name) : name_(name) {}             // NOLINT: sess.run({}, {"y:0"})
  GraphTensor(std::string name) : name_(std::move(name)) {}  // NOLINT
  GraphTensor(absl::string_view name) : name_(std::string(name)) {}  // NOLINT

  // The output it names in `graph`; errors name the tensor.
  absl::StatusOr<NodeOutput> Resolve(const Graph& graph) const;
  // The node it names (a name may also be a node's name alone, for nodes without outputs).
  absl::StatusOr<const Node*> ResolveNode(const Graph& graph) const;

 private:
  Tensor tensor_;
  std::string name_;
};

// Values for placeholders (or any other output, which then is not computed).
using FeedList = std::vector<std::pair<GraphTensor, Tensor>>;

class Session {
 public:
  // Shares the graph's nodes: the graph may go out of scope; nodes added later can be run.
  explicit Session(const Graph& graph);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Feeds the given values, runs what `fetches` and `targets` (nodes run for their effects)
  // need, and returns the fetched values in order. Safe to call from several threads at once.
  // Throws Error naming the node, its op, input shapes and the source line that made it.
  std::vector<Tensor> run(const FeedList& feeds, const std::vector<GraphTensor>& fetches,
                          const std::vector<GraphTensor>& targets = {});

  // The number of plans compiled so far (one per distinct signature).
  int num_plans() const;

  // What the plan of a signature did on its last run (Note [Static plans] in plan.h): its steps,
  // whether it ran on a static layout, and that layout's arena size. Compiles it if need be.
  struct PlanInfo {
    int steps = 0;
    bool static_layout = false;
    int64_t arena_bytes = 0;
  };
  PlanInfo plan_info(const std::vector<GraphTensor>& feeds, const std::vector<GraphTensor>& fetches,
                     const std::vector<GraphTensor>& targets = {});

 private:
  absl::StatusOr<std::vector<Tensor>> Run(const FeedList& feeds,
                                          const std::vector<GraphTensor>& fetches,
                                          const std::vector<GraphTensor>& targets);
  // The plan of a signature whose fetches and targets are given by names or handles, compiled if
  // need be.
  absl::StatusOr<Plan*> ResolvePlan(const std::vector<NodeOutput>& feeds,
                                    const std::vector<GraphTensor>& fetches,
                                    const std::vector<GraphTensor>& targets);
  absl::StatusOr<Plan*> PlanFor(const std::vector<NodeOutput>& feeds,
                                const std::vector<NodeOutput>& fetches,
                                const std::vector<const Node*>& targets);
  using Signature = absl::InlinedVector<int, 16>;
  static Signature SignatureOf(const std::vector<NodeOutput>& feeds,
                               const std::vector<NodeOutput>& fetches,
                               const std::vector<const Node*>& targets);

  // The state of a VarHandleOp node made in the graph (not a captured eager variable): one per
  // shared_name (or node name), living as long as the session, as TensorFlow's resource manager
  // keeps them. Called with mu_ held.
  Tensor SessionVariable(const Node& node);

  Graph graph_;  // shares the user's graph's nodes
  mutable std::mutex mu_;
  absl::flat_hash_map<Signature, std::unique_ptr<Plan>> plans_;  // guarded by mu_
  absl::flat_hash_map<std::string, Tensor> variables_;           // guarded by mu_
};

}  // namespace duet
