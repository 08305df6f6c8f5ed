// Freezing: variables folded into constants, so a graph runs without their state (for export).
#pragma once

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace duet {

// A copy of `graph` in which every read of a captured variable (an eager Variable used in the
// graph) is a Const holding the variable's current value, named as the read was; the variable
// handles are gone. TensorFlow's convert_variables_to_constants. InvalidArgument, naming the
// node, when the graph does anything else with such a variable (an assignment).
absl::StatusOr<Graph> TryFreezeVariables(const Graph& graph);
// Same, throwing Error.
Graph freeze_variables(const Graph& graph);

}  // namespace duet
