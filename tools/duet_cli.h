// The `duet` command line: inspect, run and optimize GraphDef files.
//
//   duet inspect model.pb [--dot]    nodes, ops, dtypes and shapes, op counts; --dot: Graphviz
//   duet run model.pb --input x=a.npy [--input ...] --output y [--output ...] [--out y.npy ...]
//                                    feeds .npy files, fetches outputs, writes them as .npy (or
//                                    prints them when no --out is given)
//   duet optimize in.pb out.pb [--passes=a,b] [--disable=a,b] [--keep=node,...] [--report]
//                [--verify]          runs the pass pipeline (docs/passes.md), writes the result,
//                                    prints per-pass statistics; --report: also the fusions that
//                                    did not fire and why; --verify: the shadow check
//   Files ending in .pbtxt are text GraphDefs, others binary.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace duet {

// Runs the command `args` (without the program name); writes results to `out` and errors to
// `err`. Returns the process exit code: 0 on success, 1 on a failed command, 2 on bad usage.
int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace duet
