// Graph <-> TensorFlow GraphDef, and GraphDef files. Nodes use TensorFlow's op and attr names, so
// TensorFlow imports what duet writes and duet runs frozen graphs TensorFlow wrote.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "proto/graph.pb.h"

namespace duet {

// Export: every node with its inputs ("node", "node:k", "^control"), device and the attrs whose
// value differs from the op's default (TensorFlow fills defaults in; leaving them out lets older
// TensorFlow versions load attrs they added later). Fails only for values with no wire form.
absl::StatusOr<tensorflow::GraphDef> GraphToGraphDef(const Graph& graph);

// An op a GraphDef uses that duet does not register, and the nodes using it: a node of the graph
// by its name, a node of a library function as "NODE (function F)", in file order.
struct MissingOp {
  std::string op;
  std::vector<std::string> nodes;
};

// The ops that `graph_def`'s nodes and its function library's bodies use and duet lacks, by op
// name; empty when duet registers them all.
std::vector<MissingOp> MissingOps(const tensorflow::GraphDef& graph_def);

// One line naming every missing op with (up to five of) its nodes: "the graph uses 2 ops duet does
// not have: Erfc (node gelu/Erfc), StridedSlice (nodes a/s, b/s)".
std::string MissingOpsMessage(const std::vector<MissingOp>& missing);

// Import, validating everything: unknown ops (all of them reported in one error, found by a scan
// before anything is imported: MissingOpsMessage), unknown, missing or ill-typed attrs, malformed
// or dangling input references, duplicate names, cycles, and dtype/shape conflicts (each node's
// shape function runs). Errors are InvalidArgument naming the node; no input crashes it.
absl::StatusOr<Graph> GraphFromGraphDef(const tensorflow::GraphDef& graph_def);

// Binary GraphDef files, or text format when `path` ends in ".pbtxt" (for reading and diffs).
absl::Status TryWriteGraph(const Graph& graph, const std::string& path);
absl::StatusOr<Graph> TryReadGraph(const std::string& path);
// The GraphDef in a file, not imported (for looking at graphs duet cannot run).
absl::StatusOr<tensorflow::GraphDef> TryReadGraphDef(const std::string& path);

// Same, throwing Error.
void write_graph(const Graph& graph, const std::string& path);
Graph read_graph(const std::string& path);

}  // namespace duet
