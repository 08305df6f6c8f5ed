// Runs a job's ranks as threads of the test process, each with its own Gloo communicator.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "distribute/communicator.h"

namespace duet::distribute::testing {

// Runs fn(communicator) on `size` ranks at once (a fresh rendezvous directory, removed after);
// returns what each rank threw ("" when nothing).
std::vector<std::string> OnRanks(int size, const std::function<void(Communicator&)>& fn,
                                 std::chrono::milliseconds timeout = std::chrono::seconds(20));

// A rendezvous directory no other job of this process uses.
std::string FreshDir();

}  // namespace duet::distribute::testing
