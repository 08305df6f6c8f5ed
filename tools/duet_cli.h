// The `duet` command line: inspect and run GraphDef files.
//
//   duet inspect model.pb [--dot]    nodes, ops, dtypes and shapes, op counts; --dot: Graphviz
//   duet run model.pb --input x=a.npy [--input ...] --output y [--output ...] [--out y.npy ...]
//                                    feeds .npy files, fetches outputs, writes them as .npy (or
//                                    prints them when no --out is given)
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace duet {

// Runs the command `args` (without the program name); writes results to `out` and errors to
// `err`. Returns the process exit code: 0 on success, 1 on a failed command, 2 on bad usage.
int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace duet
