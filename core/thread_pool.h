// The intra-op thread pool: splits one kernel's loop across the machine's cores.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/functional/function_ref.h"

namespace duet {

// A fixed set of worker threads. The caller of ParallelFor works too, so a pool of N threads
// has N-1 workers.
class ThreadPool {
 public:
  // The process-wide pool, sized to the number of hardware threads.
  static ThreadPool& Intra();

  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs fn(begin, end) over contiguous chunks covering [0, n), each at least `min_chunk` long
  // (except possibly the last), in parallel; returns when all chunks are done. Small loops, and
  // calls made from inside a worker, run inline on the calling thread.
  void ParallelFor(int64_t n, int64_t min_chunk, absl::FunctionRef<void(int64_t, int64_t)> fn);

 private:
  struct Job;
  void WorkerLoop();

  // std::mutex rather than absl::Mutex: Debian's Abseil is built without ThreadSanitizer
  // annotations, so TSan cannot see absl::Mutex synchronization and would report false races on
  // every job hand-off; pthread-based std::mutex is intercepted by TSan.
  std::mutex mu_;
  std::condition_variable wake_;
  Job* job_ = nullptr;       // guarded by mu_
  uint64_t job_serial_ = 0;  // guarded by mu_
  bool stop_ = false;        // guarded by mu_
  std::mutex run_mu_;        // one ParallelFor at a time uses the workers
  std::vector<std::thread> workers_;
};

}  // namespace duet
