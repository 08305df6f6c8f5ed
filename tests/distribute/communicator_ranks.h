// Runs a job's ranks as threads of the test process, each with a Communicator of its own over
// Gloo, whose collectives are ops (ranks.h runs bare backends).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "distribute/communicator.h"
#include "tests/distribute/ranks.h"

namespace duet::distribute::testing {

// Runs fn(communicator) on `size` ranks at once; returns what each rank threw ("" when nothing).
inline std::vector<std::string> OnRanks(
    int size, const std::function<void(const Communicator&)>& fn,
    std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  return OnBackendRanks(
      size, [&](std::shared_ptr<Backend> backend) { fn(Communicator(std::move(backend))); },
      timeout);
}

}  // namespace duet::distribute::testing
