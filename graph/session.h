// Session: runs a graph. The first run of each (feeds, fetches, targets) signature optimizes a
// copy of the graph for it (graph/passes/optimize.h) and compiles a plan (pruned, ordered,
// kernels resolved, buffers laid out by liveness); later runs reuse it.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "graph/graph.h"
#include "graph/passes/optimize.h"
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

struct SessionOptions {
  // Run the pass pipeline on each signature's copy of the graph (the user's graph is untouched).
  bool optimize = true;
  // Specialize a signature's copy to the shapes fed at its first runs where the graph leaves dims
  // unknown (a frozen model's batch), so shape-dependent passes fire (Note [Specializing to fed
  // shapes] in session.cc). A few shape sets per signature; others share one general plan.
  bool specialize_shapes = true;
  PassOptions passes;  // keep, dump_dir and verify apply per signature
};

class Session {
 public:
  // Shares the graph's nodes: the graph may go out of scope; nodes added later can be run.
  explicit Session(const Graph& graph, SessionOptions options = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Feeds the given values, runs what `fetches` and `targets` (nodes run for their effects)
  // need, and returns the fetched values in order, each on the device its node ran on. Feeds are
  // copied to their placeholders' devices. Safe to call from several threads at once.
  // Throws Error naming the node, its op, input shapes and the source line that made it.
  std::vector<Tensor> run(const FeedList& feeds, const std::vector<GraphTensor>& fetches,
                          const std::vector<GraphTensor>& targets = {});

  // The number of plans compiled so far (one per distinct signature and specialized shapes).
  int num_plans() const;

  // What the plan of a signature did on its last run (Note [Static plans] in plan.h): its steps,
  // whether it ran on a static layout, and that layout's arena size. Compiles it if need be.
  struct PlanInfo {
    int steps = 0;
    bool static_layout = false;
    int64_t arena_bytes = 0;
    PassReport passes;  // what optimizing the signature's graph did (empty when not optimized)
  };
  // The plan is the one the signature's last run used (a specialized one: Note [Specializing to
  // fed shapes]), or its general plan before any run.
  PlanInfo plan_info(const std::vector<GraphTensor>& feeds, const std::vector<GraphTensor>& fetches,
                     const std::vector<GraphTensor>& targets = {});

 private:
  struct Compiled;
  absl::StatusOr<std::vector<Tensor>> TryRun(const FeedList& feeds,
                                             const std::vector<GraphTensor>& fetches,
                                             const std::vector<GraphTensor>& targets);
  // The plan of a signature whose fetches and targets are given by names or handles, compiled if
  // need be: for the shapes of the fed `values`, or (none given) the last one used.
  absl::StatusOr<Compiled*> ResolvePlan(const std::vector<NodeOutput>& feeds,
                                        const std::vector<Tensor>* values,
                                        const std::vector<GraphTensor>& fetches,
                                        const std::vector<GraphTensor>& targets);
  using Signature = absl::InlinedVector<int, 16>;
  static Signature SignatureOf(const std::vector<NodeOutput>& feeds,
                               const std::vector<NodeOutput>& fetches,
                               const std::vector<const Node*>& targets);

  // The state of a VarHandleOp node made in the graph (not a captured eager variable): one per
  // shared_name (or node name), living as long as the session, as TensorFlow's resource manager
  // keeps them. Called with mu_ held.
  Tensor SessionVariable(const Node& node);

  // A signature's optimized copy of the graph and the plan that runs it.
  struct Compiled {
    Graph graph;
    PassReport passes;
    std::unique_ptr<Plan> plan;
  };
  // A signature's plans: one per specialized set of feed shapes, and the general one.
  struct SignaturePlans {
    std::vector<std::pair<std::vector<Shape>, std::unique_ptr<Compiled>>> specialized;
    std::unique_ptr<Compiled> general;
    Compiled* last = nullptr;  // what the last run used
  };
  // Compiles the signature's plan, with the fed placeholders of the copy given `feed_shapes`
  // (one per feed) when they are not empty.
  absl::StatusOr<std::unique_ptr<Compiled>> Compile(const std::vector<NodeOutput>& feeds,
                                                    const std::vector<Shape>& feed_shapes,
                                                    const std::vector<NodeOutput>& fetches,
                                                    const std::vector<const Node*>& targets);
  absl::StatusOr<Compiled*> CompiledFor(const std::vector<NodeOutput>& feeds,
                                        const std::vector<Tensor>* values,
                                        const std::vector<NodeOutput>& fetches,
                                        const std::vector<const Node*>& targets);

  Graph graph_;  // shares the user's graph's nodes
  const SessionOptions options_;
  mutable std::mutex mu_;
  absl::flat_hash_map<Signature, SignaturePlans> plans_;  // guarded by mu_
  int num_plans_ = 0;                                     // guarded by mu_
  int64_t renumberings_ = 0;  // guarded by mu_: the graph's, when plans_ was keyed
  absl::flat_hash_map<std::string, Tensor> variables_;  // guarded by mu_
};

}  // namespace duet
