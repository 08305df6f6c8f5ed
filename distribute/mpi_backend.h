// The MPI distribute::Backend (Debian's Open MPI): the job mpirun started this
// process in (MPI_COMM_WORLD), or a job of one without mpirun.
#pragma once

#include <chrono>
#include <memory>

#include "distribute/backend.h"

namespace duet::distribute {

struct MpiOptions {
  // Every collective's timeout (Note [Collective timeouts]): MPI's collectives have none, so each
  // runs non-blocking and is waited for at most this long.
  std::chrono::milliseconds timeout = kDefaultTimeout;
};

// Initializes MPI (once per process; it is finalized at exit) and returns a communicator over a
// duplicate of MPI_COMM_WORLD.
std::shared_ptr<Backend> ConnectMpi(const MpiOptions& options = {});

// Whether this process was started by an MPI launcher (mpirun sets OMPI_COMM_WORLD_SIZE, other
// launchers PMI_SIZE or PMIX_RANK).
bool LaunchedByMpi();

}  // namespace duet::distribute
