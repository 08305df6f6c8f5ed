// PassContext: what a pass sees besides the graph (the options, which nodes must survive) and
// where it records what it did (counters, fusions, missed fusions) for the report and dumps.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "graph/passes/optimize.h"
#include "graph/passes/rewrite.h"

namespace duet {

// A node a pass replaced, as the dump's diff shows it.
struct ReplacedNode {
  std::string name, op, source;
  std::vector<std::string> fused_sources;  // of a fused node that was fused again

  static ReplacedNode Of(const Node& node) {
    return {node.name(), node.op().name, node.source(), node.fused_sources()};
  }
};

// One fusion, for the diff: the node that computes the result now and what it replaced.
struct FusionRecord {
  std::string result, op;
  std::vector<ReplacedNode> replaced;
};

class PassContext {
 public:
  PassContext(const PassOptions& options, absl::flat_hash_set<const Node*> keep)
      : options_(options), keep_(std::move(keep)) {}

  const PassOptions& options() const { return options_; }
  // Whether `node` must keep its name and outputs (a fetch, a target, a kept or sink node).
  bool Keeps(const Node* node) const { return keep_.contains(node); }

  // Adds to a counter of the running pass ("cse.merged").
  void Count(absl::string_view counter, int64_t n = 1);
  // Records that `result` now computes what the `replaced` nodes did (described before the
  // rewrite: `result` may be one of them, rewritten in place).
  void Fused(const Node& result, std::vector<ReplacedNode> replaced);
  // Records that `fusion` did not fire at `node`, and why.
  void Missed(absl::string_view fusion, const Node& node, std::string why);

  // For the pass manager.
  std::vector<std::pair<std::string, int64_t>> TakeCounters();
  std::vector<FusionRecord> TakeFusions();
  void ClearMissed() { missed_.clear(); }
  const std::vector<MissedFusion>& missed() const { return missed_; }

 private:
  const PassOptions& options_;
  absl::flat_hash_set<const Node*> keep_;
  std::vector<std::pair<std::string, int64_t>> counters_;
  std::vector<FusionRecord> fusions_;
  std::vector<MissedFusion> missed_;
};

// Why `node`'s value may not change (empty when it may: one data reader, not kept, no control
// edges out).
std::string SharedObstacle(const Node& node, const PassContext& context, const UseIndex& uses);

// A pass: true when it changed the graph.
using PassFn = absl::StatusOr<bool> (*)(Graph& graph, PassContext& context);

}  // namespace duet
