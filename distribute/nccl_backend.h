// The NCCL backend (distribute/backend.h): collectives on tensors in CUDA memory among ranks that
// each drive one GPU, over NVIDIA's NCCL (/usr/local/cuda). Built under --config=cuda only.
#pragma once

#include <chrono>
#include <memory>

#include "distribute/backend.h"

namespace duet::distribute {

struct NcclOptions {
  // The GPU this rank drives (cuda:device); tensors on other devices are copied to it.
  int device = 0;
  // Every collective's timeout (Note [Collective timeouts]), kept by a watchdog: a collective
  // still running after it aborts the communicator (ncclCommAbort) and fails with
  // DeadlineExceeded.
  std::chrono::milliseconds timeout = kDefaultTimeout;
};

// Joins the job of `bootstrap`'s ranks (a CPU backend, e.g. Gloo, over which rank 0's NCCL
// unique id reaches the others) as the same rank on options.device.
std::shared_ptr<Backend> ConnectNccl(Backend& bootstrap, const NcclOptions& options = {});

}  // namespace duet::distribute
