// What the pass tests share: the ops a graph holds, and optimizing a copy of a graph while
// checking that it still computes the same values.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "duet.h"

namespace duet::testing {

// Op name -> number of nodes with that op.
std::map<std::string, int> OpCounts(const Graph& graph);

// Runs `graph` without optimizing it.
std::vector<Tensor> RunUnoptimized(const Graph& graph, const FeedList& feeds,
                                   const std::vector<std::string>& fetches);

struct Optimized {
  Graph graph;
  PassReport report;
};

// Optimizes a copy of `graph` (keeping the fetched nodes), runs both on `feeds` and checks that
// every fetch agrees within `tolerance` (0: equal values; -0 equals +0).
Optimized OptimizeAndCompare(const Graph& graph, PassOptions options, const FeedList& feeds,
                             const std::vector<std::string>& fetches, double tolerance = 0);

// `name` under the test's temporary directory ($TEST_TMPDIR, else /tmp), emptied: for dumps.
std::filesystem::path EmptyTestDir(const std::string& name);

}  // namespace duet::testing
