// A ranked list of alternatives (say, a library's algorithms for one problem) tried in order until
// one works, remembering across calls and threads those that failed for good. Used for cuDNN's
// convolution algorithms: Note [cuDNN algorithm fallback] in kernels/cuda/nn/conv_cache.h.
#pragma once

#include <algorithm>
#include <atomic>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"

namespace duet {

class FirstWorking {
 public:
  // Calls try_one(i) for i from the first alternative not known to fail up to count - 1, until
  // one returns OK. An alternative failing with ResourceExhausted (memory it could not get) is
  // passed over by this call only; any other error passes it over in every later call. The last
  // alternative is always tried, so a list whose alternatives all failed still returns an error.
  // Returns OK, or the first error met.
  absl::Status Run(int count, absl::FunctionRef<absl::Status(int)> try_one) const {
    absl::Status first_error;
    for (int i = std::max(0, std::min(failed_.load(std::memory_order_relaxed), count - 1));
         i < count; ++i) {
      absl::Status status = try_one(i);
      if (status.ok()) return status;
      if (!absl::IsResourceExhausted(status)) {
        int expected = i;  // unless another call moved past it already
        failed_.compare_exchange_strong(expected, i + 1, std::memory_order_relaxed);
      }
      if (first_error.ok()) first_error = std::move(status);
    }
    if (first_error.ok()) return absl::InternalError("no alternatives to try");
    return first_error;
  }

  // How many leading alternatives failed for good.
  int failed() const { return failed_.load(std::memory_order_relaxed); }

 private:
  mutable std::atomic<int> failed_{0};
};

}  // namespace duet
