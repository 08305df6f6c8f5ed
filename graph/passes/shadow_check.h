// PassOptions::verify: runs a graph before and after optimization on the same random inputs and,
// on a mismatch, names the pass responsible.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "graph/passes/optimize.h"

namespace duet {

// Feeds every Placeholder of `original` random values (unknown dims taken as 2), fetches the
// outputs of the `kept` nodes from both graphs and compares them (floats within 1e-4 relative,
// others exactly). Returns what it checked, or why it could not (a graph that updates state
// would change the user's variables); FailedPrecondition on a mismatch, after rerunning the
// pipeline with each pass disabled in turn to find the one that makes the difference.
absl::StatusOr<std::string> ShadowCheck(const Graph& original, const Graph& optimized,
                                        const std::vector<std::string>& kept,
                                        const PassOptions& options);

}  // namespace duet
