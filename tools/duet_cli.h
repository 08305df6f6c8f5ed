// The `duet` command line: inspect, run, benchmark and optimize GraphDef files.
//
//   duet inspect model.pb [--dot]    nodes, ops, dtypes and shapes, op counts; --dot: Graphviz.
//                                    A graph using ops duet lacks still lists its ops (those
//                                    marked "(missing)") and exits 0 (--dot: exits 1)
//   duet run model.pb --input x=a.npy [--input ...] --output y [--output ...] [--out y.npy ...]
//                                    feeds .npy files, fetches outputs, writes them as .npy (or
//                                    prints them when no --out is given)
//   duet bench model.pb --input x=a.npy ... --output y ... [--runs N] [--threads T]
//                                    load time (read + import), first-run time, and latency
//                                    percentiles over N more runs (default 50) of one Session,
//                                    as name<TAB>value<TAB>unit lines; T intra-op threads
//   duet optimize in.pb out.pb [--passes=a,b] [--disable=a,b] [--keep=node,...] [--report]
//                [--verify]          runs the pass pipeline (docs/passes.md), writes the result,
//                                    prints per-pass statistics; --report: also the fusions that
//                                    did not fire and why; --verify: the shadow check
//   duet ops [--opdefs]              the registered ops' names, one a line; --opdefs: their
//                                    TensorFlow OpDefs as a text-format OpList
//   duet launch --nproc N ... -- PROGRAM ARGS
//                                    starts a data-parallel job's workers (tools/launch.h)
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
