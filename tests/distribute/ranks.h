// Runs a job's ranks as threads of the test process, each with its own Gloo backend (no kernels:
// the backend tests run under the sanitizers; communicator_ranks.h gives each a Communicator).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "distribute/backend.h"

namespace duet::distribute::testing {

// Runs fn(backend) on `size` ranks at once (a fresh rendezvous directory, removed after);
// returns what each rank threw ("" when nothing).
std::vector<std::string> OnBackendRanks(
    int size, const std::function<void(std::shared_ptr<Backend>)>& fn,
    std::chrono::milliseconds timeout = std::chrono::seconds(20));

// A rendezvous directory no other job of this process uses.
std::string FreshDir();

// A TCP port no one listens on now (the kernel's pick for port 0), for a TCP rendezvous.
int FreePort();

}  // namespace duet::distribute::testing
