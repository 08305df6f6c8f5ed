// `duet launch`: starts the workers of a data-parallel job on this machine, as torchrun does.
//
//   duet launch --nproc N [--nnodes M --node-rank K] [--rendezvous-dir DIR |
//               --master-addr HOST [--master-port P]] [--timeout S] -- PROGRAM [ARGS...]
//
// Note [Launch environment]: worker i of this node runs PROGRAM with DUET_RANK (node_rank * N +
// i), DUET_LOCAL_RANK (i), DUET_WORLD_SIZE (N * M), DUET_LOCAL_WORLD_SIZE (N),
// DUET_RENDEZVOUS_DIR (or, with --master-addr, DUET_MASTER_ADDR and DUET_MASTER_PORT) and, with
// --timeout, DUET_COLLECTIVE_TIMEOUT_S, which distribute::init()
// reads (also RANK, LOCAL_RANK and WORLD_SIZE, torchrun's names, and MASTER_ADDR, MASTER_PORT).
// Without --rendezvous-dir or --master-addr the job meets in a fresh temporary directory, removed
// at the end (one node only; several nodes need a directory on a file system they share, or
// --master-addr: rank 0, on node 0, serves the rendezvous on --master-port, 29500 by default). Each
// line a worker writes comes out prefixed with "[rank] ", on the launcher's stdout or stderr as the
// worker wrote it. SIGINT and SIGTERM are passed on to the workers. When a worker fails (a non-zero
// exit or a signal), the others get SIGTERM, then SIGKILL after a grace period, and the launcher
// exits with that worker's status (128 + the signal's number for a signal). It names every rank
// that failed: when one worker dies, its peers' collectives fail at once, and which exit is seen
// first is chance.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace duet {

struct LaunchOptions {
  int nproc = 1;
  int nnodes = 1;
  int node_rank = 0;
  std::string rendezvous_dir;  // empty: a fresh temporary directory (nnodes must be 1)
  std::string master_addr;     // or a TCP rendezvous at rank 0's host (Note [TCP rendezvous])
  int master_port = 29500;
  double timeout_seconds = 0;  // > 0: DUET_COLLECTIVE_TIMEOUT_S for the workers
  double grace_seconds = 5;    // after a failure, between SIGTERM and SIGKILL for the others
  std::vector<std::string> command;
};

// Runs the job; returns the launcher's exit status (see above).
int Launch(const LaunchOptions& options, std::ostream& out, std::ostream& err);

// `duet launch ARGS`: parses ARGS (after "launch") and runs the job; 2 on bad usage.
int LaunchCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace duet
