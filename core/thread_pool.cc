#include "core/thread_pool.h"

#include <algorithm>
#include <atomic>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/device.h"

namespace duet {
namespace {
thread_local bool in_parallel_region = false;
thread_local bool serial_thread = false;  // Note [Pipeline threads] in thread_pool.h
}  // namespace

// One ParallelFor call: chunks are claimed with an atomic counter by the caller and the workers.
struct ThreadPool::Job {
  absl::FunctionRef<void(int64_t, int64_t)> fn;
  int64_t n;
  int64_t chunk;
  int64_t num_chunks;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  std::atomic<int> workers_inside{0};  // workers that may still touch this job

  // Claims and runs chunks until none are left.
  void Work() {
    for (int64_t c; (c = next.fetch_add(1)) < num_chunks;) {
      const int64_t begin = c * chunk;
      fn(begin, std::min(n, begin + chunk));
      done.fetch_add(1, std::memory_order_release);
    }
  }
};

ThreadPool& ThreadPool::Intra() {
  static auto* pool = new ThreadPool(std::max(1u, std::thread::hardware_concurrency()));
  return *pool;
}

ThreadPool::ThreadPool(int num_threads)
    : max_threads_(std::max(1, num_threads)), num_threads_(max_threads_) {
#ifndef _OPENMP
  for (int i = 1; i < max_threads_; ++i) workers_.emplace_back([this] { WorkerLoop(); });
#endif
}

int ThreadPool::set_num_threads(int n) {
  n = std::clamp(n, 1, max_threads_);
#ifdef _OPENMP
  // Never above the thread limit: Note [OpenMP thread limit] in thread_pool.h.
  n = std::min(n, std::max(1, omp_get_thread_limit()));
  omp_set_num_threads(n);
#endif
  num_threads_.store(n, std::memory_order_relaxed);
  return n;
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::WorkerLoop() {
  in_parallel_region = true;
  uint64_t seen = 0;
  while (true) {
    Job* job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [&] { return stop_ || job_serial_ != seen; });
      if (stop_) return;
      seen = job_serial_;
      job = job_;
      if (job == nullptr) continue;
      job->workers_inside.fetch_add(1, std::memory_order_relaxed);
    }
    job->Work();
    job->workers_inside.fetch_sub(1, std::memory_order_release);
  }
}

void ThreadPool::ParallelFor(int64_t n, int64_t min_chunk,
                             absl::FunctionRef<void(int64_t, int64_t)> fn) {
  if (n <= 0) return;
  min_chunk = std::max<int64_t>(min_chunk, 1);
  const int64_t max_chunks = std::min<int64_t>(num_threads(), n / min_chunk);
  if (max_chunks <= 1 || in_parallel_region || serial_thread) {
    fn(0, n);
    return;
  }
  const int64_t chunk = (n + max_chunks - 1) / max_chunks;
  const int64_t num_chunks = (n + chunk - 1) / chunk;
  // The chunks run inside the caller's kernel (Note [Host reads of device memory] in device.cc).
  const bool in_kernel = KernelMemoryScope::active();
  auto chunk_fn = [&](int64_t begin, int64_t end) {
    if (!in_kernel || KernelMemoryScope::active()) return fn(begin, end);
    const KernelMemoryScope scope;
    fn(begin, end);
  };
#ifdef _OPENMP
  RunOnOpenMpTeam(n, chunk, num_chunks, chunk_fn);
#else
  RunOnWorkers(n, chunk, num_chunks, chunk_fn);
#endif
}

// Note [One thread team]: Debian's oneDNN runs its primitives on the OpenMP team, whose threads
// spin for a while after each one. Workers of our own would then fight them for the cores (on 2
// vCPUs, elementwise ops right after a matmul ran at half speed), so a build with OpenMP runs
// ParallelFor's chunks on that same team. `--config=tsan` builds without it (libgomp is not
// instrumented) and uses the workers.
#ifdef _OPENMP
void ThreadPool::RunOnOpenMpTeam(int64_t n, int64_t chunk, int64_t num_chunks,
                                 absl::FunctionRef<void(int64_t, int64_t)> fn) {
#pragma omp parallel num_threads(static_cast <int>(num_chunks))
  {
    in_parallel_region = true;
    // The team may be smaller than asked for: each thread takes every team-size-th chunk.
    for (int64_t c = omp_get_thread_num(); c < num_chunks; c += omp_get_num_threads()) {
      fn(c * chunk, std::min(n, (c + 1) * chunk));
    }
    in_parallel_region = false;
  }
}
#endif

void FitOpenMpThreadsToLimit() {
#ifdef _OPENMP
  thread_local const bool fitted = [] {
    if (omp_get_thread_limit() < omp_get_max_threads()) omp_set_num_threads(omp_get_thread_limit());
    return true;
  }();
  (void)fitted;
#endif
}

void RunKernelsSeriallyOnThisThread() {
  serial_thread = true;
#ifdef _OPENMP
  omp_set_num_threads(1);
#endif
}

void ThreadPool::RunOnWorkers(int64_t n, int64_t chunk, int64_t num_chunks,
                              absl::FunctionRef<void(int64_t, int64_t)> fn) {
  std::lock_guard<std::mutex> run_lock(run_mu_);
  Job job{fn, n, chunk, num_chunks};
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = &job;
    ++job_serial_;
  }
  wake_.notify_all();
  in_parallel_region = true;
  job.Work();
  in_parallel_region = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = nullptr;  // no new worker picks the job up after this
  }
  // Chunks claimed by workers are short: yield until they finish and every worker has let go.
  while (job.done.load(std::memory_order_acquire) < job.num_chunks ||
         job.workers_inside.load(std::memory_order_acquire) > 0) {
    std::this_thread::yield();
  }
}

}  // namespace duet
