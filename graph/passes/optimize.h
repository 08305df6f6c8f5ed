// optimize(): the graph pass pipeline (pruning, constant folding, simplification, CSE, fusions),
// with statistics and dumps that show what each pass did and why a fusion did not fire.
// docs/passes.md is the guide.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace duet {

class PassContext;

// A pass of the user's, for PassOptions::extra_passes: like the pipeline's (graph/passes/passes.h,
// PassContext in graph/passes/pass_context.h), it returns true when it changed the graph.
struct CustomPass {
  std::string name;
  std::function<absl::StatusOr<bool>(Graph& graph, PassContext& context)> run;
};

struct PassOptions {
  // The passes to run, by name, in pipeline order whatever the order here; empty: all of them.
  std::vector<std::string> passes;
  // Passes not to run, by name.
  std::vector<std::string> disable;
  // Nodes that keep their name and outputs, besides the nodes nothing consumes.
  std::vector<std::string> keep;
  // When set, the graph before and after every pass that changed it (text) and a diff.
  std::string dump_dir;
  // Shadow check: run the graph unoptimized and optimized on the same (random) inputs; on a
  // mismatch, find the pass responsible by disabling passes one at a time, and fail naming it.
  bool verify = false;
  // Rounds of the whole pipeline at most; it stops earlier when a round changes nothing.
  int max_iterations = 10;
  // Constant folding makes no constant larger than this.
  int64_t max_constant_bytes = int64_t{10} << 20;
  // Passes of the user's, run after the pipeline's in every round, in this order, with the same
  // statistics, checks, dumps and shadow check; `passes` and `disable` may name them. Their names
  // must differ from each other and from the pipeline's.
  std::vector<CustomPass> extra_passes;
};

// What one pass did in one round.
struct PassRun {
  std::string pass;
  int iteration = 0;
  double milliseconds = 0;
  int nodes_before = 0, nodes_after = 0;
  bool changed = false;
  std::vector<std::pair<std::string, int64_t>> counters;  // "cse.merged" -> 12, in first-use order
};

// A fusion candidate that did not fire, and why.
struct MissedFusion {
  std::string fusion;  // "fusion.matmul"
  std::string node;    // the node the fusion would have started from
  std::string op;
  std::string source;  // the user's line, or ""
  std::string why;
};

struct PassReport {
  int nodes_before = 0, nodes_after = 0;
  int iterations = 0;
  std::vector<PassRun> runs;
  std::vector<MissedFusion> missed;  // as of the last round
  std::string verify;                // what the shadow check (PassOptions::verify) found

  // A counter summed over all runs (0 if it never fired).
  int64_t counter(absl::string_view name) const;
  // Per pass: runs, time, nodes before and after, what fired; then the missed fusions.
  std::string str() const;
};

// The pipeline's pass names, in the order each round runs them (PassOptions::extra_passes after).
const std::vector<std::string>& PassNames();
// The pipeline's pass names, then those of `options.extra_passes`.
std::vector<std::string> AllPassNames(const PassOptions& options);

// Optimizes `graph` in place. The nodes nothing consumes and those PassOptions::keep names keep
// their names and outputs. InvalidArgument for an unknown pass or keep name; a pass's error
// names the pass.
absl::StatusOr<PassReport> TryOptimize(Graph& graph, const PassOptions& options);
// Same, keeping `keep` (and PassOptions::keep) only: what a session does with its fetches.
absl::StatusOr<PassReport> OptimizeKeeping(Graph& graph, const PassOptions& options,
                                           absl::flat_hash_set<const Node*> keep);

// Same, throwing Error.
PassReport optimize(Graph& graph, const PassOptions& options = {});

}  // namespace duet
