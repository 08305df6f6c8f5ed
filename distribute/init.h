// distribute::init(): the communicator of the job this process is a worker of, from the
// environment `duet launch` (tools/launch.h) gives each worker; a job of one when there is none.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "distribute/communicator.h"

namespace duet::distribute {

// The environment of a worker (Note [Launch environment]).
inline constexpr char kRankEnv[] = "DUET_RANK";
inline constexpr char kWorldSizeEnv[] = "DUET_WORLD_SIZE";
inline constexpr char kLocalRankEnv[] = "DUET_LOCAL_RANK";
inline constexpr char kRendezvousDirEnv[] = "DUET_RENDEZVOUS_DIR";
inline constexpr char kMasterAddrEnv[] = "DUET_MASTER_ADDR";
inline constexpr char kMasterPortEnv[] = "DUET_MASTER_PORT";
inline constexpr char kHostnameEnv[] = "DUET_HOSTNAME";
inline constexpr char kTimeoutEnv[] = "DUET_COLLECTIVE_TIMEOUT_S";
inline constexpr char kBackendEnv[] = "DUET_BACKEND";

struct InitOptions {
  // "gloo", "mpi" or "nccl": overrides DUET_BACKEND (else MPI under mpirun, Gloo otherwise).
  std::optional<std::string> backend;
  // Overrides DUET_COLLECTIVE_TIMEOUT_S (else kDefaultTimeout).
  std::optional<std::chrono::milliseconds> timeout;
};

// Joins the job described by the environment: under mpirun (or with DUET_BACKEND=mpi) over MPI,
// MPI_COMM_WORLD; else over Gloo, from DUET_RANK, DUET_WORLD_SIZE and DUET_RENDEZVOUS_DIR or
// DUET_MASTER_ADDR and DUET_MASTER_PORT (DUET_HOSTNAME optional: the address this rank listens
// on, by default localhost for a loopback master, else this machine's name), as `duet launch`
// sets them, and without DUET_WORLD_SIZE a job of
// one process (every collective returns its input). DUET_COLLECTIVE_TIMEOUT_S sets the timeout.
// The communicator becomes default_communicator(). Throws Error naming the variable that is
// missing or malformed.
Communicator init(const InitOptions& options = {});

}  // namespace duet::distribute
