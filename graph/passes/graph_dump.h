// Text dumps of graphs and diffs between them, for PassOptions::dump_dir.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/passes/pass_context.h"

namespace duet {

// One line per node: `name = Op(inputs, ^control) [attrs] -> dtype shape, ...  @ file.cc:12`.
struct GraphText {
  struct Line {
    std::string name, text, op, source;
  };
  std::vector<Line> lines;

  static GraphText Of(const Graph& graph);
  std::string str() const;
};

// What changed from `before` to `after`: nodes removed (-), added (+), changed in place (~) and
// the fusions (each replaced node with the user's line it came from).
std::string GraphDiff(const GraphText& before, const GraphText& after,
                      const std::vector<FusionRecord>& fusions);

}  // namespace duet
