// The intra-op thread pool: splits one kernel's loop across the machine's cores.
#pragma once

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/synchronization/mutex.h"

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

  absl::Mutex mu_;
  absl::CondVar wake_;
  Job* job_ ABSL_GUARDED_BY(mu_) = nullptr;
  uint64_t job_serial_ ABSL_GUARDED_BY(mu_) = 0;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  absl::Mutex run_mu_;  // one ParallelFor at a time uses the workers
  std::vector<std::thread> workers_;
};

}  // namespace duet
