#include "distribute/init.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "distribute/gloo_backend.h"
#include "distribute/mpi_backend.h"
#if DUET_NCCL
#include "distribute/nccl_backend.h"
#endif

namespace duet::distribute {
namespace {

std::optional<std::string> Env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

int IntEnv(const char* name) {
  const std::optional<std::string> value = Env(name);
  int n = 0;
  if (!value || !absl::SimpleAtoi(*value, &n)) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("distribute::init: ", name, " is ", value ? "'" + *value + "'" : "unset",
                     "; a worker started by `duet launch` has it")));
  }
  return n;
}

// This machine's name, which the other machines' ranks reach this rank at.
std::string HostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0) return "localhost";
  return name;
}

// The timeout: options.timeout, else DUET_COLLECTIVE_TIMEOUT_S, else the default.
std::chrono::milliseconds Timeout(const InitOptions& options) {
  if (options.timeout) return *options.timeout;
  const std::optional<std::string> seconds = Env(kTimeoutEnv);
  if (!seconds) return kDefaultTimeout;
  double s = 0;
  if (!absl::SimpleAtod(*seconds, &s) || s <= 0) {
    throw Error(absl::InvalidArgumentError(absl::StrCat("distribute::init: ", kTimeoutEnv, " is '",
                                                        *seconds, "', not a positive number")));
  }
  return std::chrono::milliseconds(static_cast<int64_t>(s * 1000));
}

// The job's CPU backend: MPI under mpirun, else Gloo from the launcher's environment.
std::shared_ptr<Backend> ConnectCpu(bool mpi, std::chrono::milliseconds timeout) {
  if (mpi) return ConnectMpi({.timeout = timeout});
  GlooOptions gloo{.timeout = timeout};
  if (!Env(kWorldSizeEnv)) {
    // A job of one: its own rendezvous directory, which nothing else uses.
    gloo.rendezvous_dir =
        (std::filesystem::temp_directory_path() / absl::StrCat("duet_single_", ::getpid()))
            .string();
    std::shared_ptr<Backend> backend = ConnectGloo(0, 1, gloo);
    std::filesystem::remove_all(gloo.rendezvous_dir);
    return backend;
  }
  const int size = IntEnv(kWorldSizeEnv);
  const int rank = IntEnv(kRankEnv);
  const std::optional<std::string> dir = Env(kRendezvousDirEnv);
  const std::optional<std::string> master = Env(kMasterAddrEnv);
  if (!dir && !master) {
    throw Error(absl::InvalidArgumentError(absl::StrCat("distribute::init: ", kWorldSizeEnv,
                                                        " is set but neither ", kRendezvousDirEnv,
                                                        " nor ", kMasterAddrEnv, " is")));
  }
  if (master) {
    gloo.master_addr = *master;
    if (Env(kMasterPortEnv)) gloo.master_port = IntEnv(kMasterPortEnv);
  } else {
    gloo.rendezvous_dir = *dir;
  }
  gloo.hostname =
      Env(kHostnameEnv)
          .value_or(!master || *master == "localhost" || absl::StartsWith(*master, "127.")
                        ? "localhost"
                        : HostName());
  return ConnectGloo(rank, size, gloo);
}

// The backend the environment names. NCCL joins over the CPU backend and drives
// cuda:DUET_LOCAL_RANK (each worker of a node its own GPU).
std::shared_ptr<Backend> Connect(const InitOptions& options) {
  const std::chrono::milliseconds timeout = Timeout(options);
  const std::string backend =
      options.backend.value_or(Env(kBackendEnv).value_or(LaunchedByMpi() ? "mpi" : "gloo"));
  if (backend == "gloo" || backend == "mpi") return ConnectCpu(backend == "mpi", timeout);
  if (backend != "nccl") {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("distribute::init: the backend is '", backend, "' (", kBackendEnv,
                     " or InitOptions::backend): gloo, mpi or nccl")));
  }
#if DUET_NCCL
  std::shared_ptr<Backend> bootstrap = ConnectCpu(LaunchedByMpi(), timeout);
  const int device = Env(kLocalRankEnv) ? IntEnv(kLocalRankEnv) : 0;
  return ConnectNccl(*bootstrap, {.device = device, .timeout = timeout});
#else
  throw Error(absl::FailedPreconditionError(
      "distribute::init: the backend is 'nccl' but this build has no NCCL (build with "
      "--config=cuda)"));
#endif
}

}  // namespace

Communicator init(const InitOptions& options) {
  Communicator comm(Connect(options));
  set_default_communicator(comm);
  return comm;
}

}  // namespace duet::distribute
