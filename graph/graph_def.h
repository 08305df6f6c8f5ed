// Graph <-> TensorFlow GraphDef, and GraphDef files. Nodes use TensorFlow's op and attr names, so
// TensorFlow imports what duet writes and duet runs frozen graphs TensorFlow wrote.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "proto/graph.pb.h"

namespace duet {

// Export: every node with its inputs ("node", "node:k", "^control"), device and the attrs whose
// value differs from the op's default (TensorFlow fills defaults in; leaving them out lets older
// TensorFlow versions load attrs they added later). Fails only for values with no wire form.
absl::StatusOr<tensorflow::GraphDef> GraphToGraphDef(const Graph& graph);

// Import, validating everything: unknown ops, unknown, missing or ill-typed attrs, malformed or
// dangling input references, duplicate names, cycles, and dtype/shape conflicts (each node's
// shape function runs). Errors are InvalidArgument naming the node; no input crashes it.
absl::StatusOr<Graph> GraphFromGraphDef(const tensorflow::GraphDef& graph_def);

// Binary GraphDef files, or text format when `path` ends in ".pbtxt" (for reading and diffs).
absl::Status TryWriteGraph(const Graph& graph, const std::string& path);
absl::StatusOr<Graph> TryReadGraph(const std::string& path);

// Same, throwing Error.
void write_graph(const Graph& graph, const std::string& path);
Graph read_graph(const std::string& path);

}  // namespace duet
