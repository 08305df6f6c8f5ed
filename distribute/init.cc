#include "distribute/init.h"

#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "distribute/gloo_communicator.h"
#include "distribute/mpi_communicator.h"

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

}  // namespace

std::unique_ptr<Communicator> init(const InitOptions& options) {
  GlooOptions gloo;
  gloo.timeout = options.timeout.value_or(kDefaultTimeout);
  if (!options.timeout) {
    if (const std::optional<std::string> seconds = Env(kTimeoutEnv)) {
      double s = 0;
      if (!absl::SimpleAtod(*seconds, &s) || s <= 0) {
        throw Error(absl::InvalidArgumentError(absl::StrCat(
            "distribute::init: ", kTimeoutEnv, " is '", *seconds, "', not a positive number")));
      }
      gloo.timeout = std::chrono::milliseconds(static_cast<int64_t>(s * 1000));
    }
  }
  const std::string backend = Env(kBackendEnv).value_or(LaunchedByMpi() ? "mpi" : "gloo");
  if (backend == "mpi") return ConnectMpi({.timeout = gloo.timeout});
  if (backend != "gloo") {
    throw Error(absl::InvalidArgumentError(absl::StrCat(
        "distribute::init: ", kBackendEnv, " is '", backend, "': gloo or mpi (nccl: not yet)")));
  }
  if (!Env(kWorldSizeEnv)) {
    // A job of one: its own rendezvous directory, which nothing else uses.
    gloo.rendezvous_dir =
        (std::filesystem::temp_directory_path() / absl::StrCat("duet_single_", ::getpid()))
            .string();
    auto comm = ConnectGloo(0, 1, gloo);
    std::filesystem::remove_all(gloo.rendezvous_dir);
    return comm;
  }
  const int size = IntEnv(kWorldSizeEnv);
  const int rank = IntEnv(kRankEnv);
  const std::optional<std::string> dir = Env(kRendezvousDirEnv);
  if (!dir) {
    throw Error(absl::InvalidArgumentError(absl::StrCat(
        "distribute::init: ", kWorldSizeEnv, " is set but ", kRendezvousDirEnv, " is not")));
  }
  gloo.rendezvous_dir = *dir;
  gloo.hostname = Env(kHostnameEnv).value_or("localhost");
  return ConnectGloo(rank, size, gloo);
}

}  // namespace duet::distribute
