#include "core/thread_pool.h"

#include <algorithm>
#include <atomic>

namespace duet {
namespace {
thread_local bool in_parallel_region = false;
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

ThreadPool::ThreadPool(int num_threads) {
  for (int i = 1; i < num_threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
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
  if (max_chunks <= 1 || in_parallel_region) {
    fn(0, n);
    return;
  }
  std::lock_guard<std::mutex> run_lock(run_mu_);
  Job job{fn, n, (n + max_chunks - 1) / max_chunks, 0};
  job.num_chunks = (n + job.chunk - 1) / job.chunk;
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
