// Device boundaries in a graph: where a value crosses from one device to another, the session
// runs a copy.
//
// Note [Device boundaries]: nodes carry their device (Node::placement, Note [Placement] in
// ops/placement.h), and a node reads each input on its own device, host inputs on the CPU.
// Before a signature is planned, InsertDeviceCopies gives every edge whose value lives elsewhere
// a DuetCopyToDevice node on the reader's side (one per value and device, shared by the readers
// there), so the plan itself only ever runs kernels on their own devices. A Const gets a twin on
// the reader's device instead, whose value the plan copies once (no copy per run). Variable handles
// never move: a node reads a variable on the variable's device (placement rule 3).
#pragma once

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace duet {

// Inserts the copies (Note [Device boundaries]); returns how many. Leaves the graph in
// topological order.
absl::StatusOr<int> InsertDeviceCopies(Graph& graph);

}  // namespace duet
