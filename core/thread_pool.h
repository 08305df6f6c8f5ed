// The intra-op thread pool: splits one kernel's loop across the machine's cores.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/functional/function_ref.h"

namespace duet {

// N threads for one kernel's loops: the OpenMP team when built with OpenMP (see Note [One thread
// team] in thread_pool.cc), else a fixed set of N-1 workers. The caller of ParallelFor works
// too.
class ThreadPool {
 public:
  // The process-wide pool, sized to the number of hardware threads.
  static ThreadPool& Intra();

  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_.load(std::memory_order_relaxed); }
  // The count it was made with: the most set_num_threads allows.
  int max_threads() const { return max_threads_; }

  // Sets how many threads later ParallelFor calls split their loops for, clamped to
  // [1, max_threads()] and OpenMP's thread limit (TensorFlow's intra_op_parallelism_threads,
  // process-wide here). With OpenMP it also sets the calling thread's team size, which oneDNN's
  // primitives split their work for, so call it from the thread that runs the kernels. Returns
  // the count now in effect.
  int set_num_threads(int n);

  // Runs fn(begin, end) over contiguous chunks covering [0, n), each at least `min_chunk` long
  // (except possibly the last), in parallel; returns when all chunks are done. Small loops, and
  // calls made from inside a worker, run inline on the calling thread.
  void ParallelFor(int64_t n, int64_t min_chunk, absl::FunctionRef<void(int64_t, int64_t)> fn);

 private:
  struct Job;
  void RunOnOpenMpTeam(int64_t n, int64_t chunk, int64_t num_chunks,
                       absl::FunctionRef<void(int64_t, int64_t)> fn);
  void RunOnWorkers(int64_t n, int64_t chunk, int64_t num_chunks,
                    absl::FunctionRef<void(int64_t, int64_t)> fn);
  void WorkerLoop();

  const int max_threads_;
  std::atomic<int> num_threads_;

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

// Note [Pipeline threads]: threads that run kernels beside the main computation (the input
// pipeline's prefetch and map workers) call this once: afterwards ParallelFor runs inline on them
// and oneDNN primitives they run use one thread. Splitting their small kernels across the cores
// would start a second OpenMP team, whose threads spin-wait for work on the cores the training
// step's team is using (on 2 cores, prefetching then made an epoch slower than not prefetching).
// tf.data's threads run their ops on a thread pool of their own for the same reason.
void RunKernelsSeriallyOnThisThread();

// Note [OpenMP thread limit]: oneDNN splits a primitive's work for omp_get_max_threads()
// threads, which OMP_THREAD_LIMIT does not lower; a team capped below that leaves part of the
// output unwritten (OMP_THREAD_LIMIT=1 on 2 cores gave garbage matmuls). Code that runs oneDNN
// calls this first: it lowers the calling thread's team size to the limit, once per thread.
void FitOpenMpThreadsToLimit();

}  // namespace duet
