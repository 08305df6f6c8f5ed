// The Gloo distribute::Backend (Debian's libgloo): TCP between the ranks, which find each other
// through a rendezvous directory every rank can read and write (a local directory for processes
// of one machine, a shared file system across machines) or through rank 0's address (a TCP
// store, Note [TCP rendezvous] in tcp_store.h).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "distribute/backend.h"

namespace duet::distribute {

struct GlooOptions {
  // The rendezvous directory (made if missing). Each job needs its own: a directory left from
  // an earlier job of the same size would pair ranks with that job's addresses.
  std::string rendezvous_dir;
  // Or, when set, a TCP rendezvous: rank 0 serves a store on master_port, which every rank
  // reaches at master_addr (rank 0's host).
  std::string master_addr;
  int master_port = 29500;
  // The network interface (e.g. "eth0") or hostname the ranks listen on; "localhost" for
  // processes of one machine.
  std::string hostname = "localhost";
  // Every collective's and the rendezvous' timeout (Note [Collective timeouts]).
  std::chrono::milliseconds timeout = kDefaultTimeout;
};

// Joins the job as `rank` of `size` (0 <= rank < size): returns once every rank has joined, or
// throws Error (Unavailable) naming the ranks missing after the timeout.
std::shared_ptr<Backend> ConnectGloo(int rank, int size, const GlooOptions& options);

}  // namespace duet::distribute
