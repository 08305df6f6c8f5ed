// optimize(): the pass pipeline over a whole graph, keeping what nothing consumes; and PassReport.
#include "graph/passes/optimize.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/error.h"

namespace duet {

absl::StatusOr<PassReport> TryOptimize(Graph& graph, const PassOptions& options) {
  absl::flat_hash_set<const Node*> consumed, sinks;
  for (const Node* node : graph.nodes()) {
    for (const NodeOutput& in : node->inputs()) consumed.insert(in.node);
    for (const Node* in : node->control_inputs()) consumed.insert(in);
  }
  for (const Node* node : graph.nodes()) {
    if (!consumed.contains(node)) sinks.insert(node);
  }
  return OptimizeKeeping(graph, options, std::move(sinks));
}

PassReport optimize(Graph& graph, const PassOptions& options) {
  absl::StatusOr<PassReport> report = TryOptimize(graph, options);
  if (!report.ok()) {
    throw Error(absl::Status(report.status().code(),
                             absl::StrCat("optimize: ", report.status().message())));
  }
  return *std::move(report);
}

int64_t PassReport::counter(absl::string_view name) const {
  int64_t total = 0;
  for (const PassRun& run : runs) {
    for (const auto& [counter, value] : run.counters) {
      if (counter == name) total += value;
    }
  }
  return total;
}

std::string PassReport::str() const {
  std::string out = absl::StrFormat("optimize: %d -> %d nodes in %d round%s\n", nodes_before,
                                    nodes_after, iterations, iterations == 1 ? "" : "s");
  for (const PassRun& run : runs) {
    if (!run.changed && run.counters.empty()) continue;
    std::vector<std::string> counters;
    for (const auto& [name, value] : run.counters)
      counters.push_back(absl::StrCat(name, " = ", value));
    absl::StrAppendFormat(&out, "  round %d %-18s %8.3f ms  %5d -> %5d nodes  %s\n", run.iteration,
                          run.pass, run.milliseconds, run.nodes_before, run.nodes_after,
                          absl::StrJoin(counters, ", "));
  }
  if (!missed.empty()) absl::StrAppend(&out, "fusions that did not fire:\n");
  for (const MissedFusion& m : missed) {
    absl::StrAppend(&out, "  ", m.fusion, " at ", m.node, " (", m.op, m.source.empty() ? "" : ", ",
                    m.source, "): ", m.why, "\n");
  }
  if (!verify.empty()) absl::StrAppend(&out, "verify: ", verify, "\n");
  return out;
}

}  // namespace duet
