#include "core/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace duet {
namespace {

// Catch2 assertions are not thread-safe: code inside ParallelFor only counts, the test thread
// checks.

// A pool of `n` threads shared by the tests below (thread start-up is not what they test).
ThreadPool& Pool(int n) {
  static ThreadPool* pools[5] = {};
  if (pools[n] == nullptr) pools[n] = new ThreadPool(n);
  return *pools[n];
}

TEST_CASE("ParallelFor covers every index exactly once") {
  ThreadPool& pool = Pool(4);
  CHECK(pool.num_threads() == 4);
  for (int64_t n : {1, 7, 100, 1001, 100000}) {
    for (int64_t min_chunk : {1, 16, 1000}) {
      std::vector<std::atomic<int>> hits(n);
      std::atomic<int64_t> chunks{0};
      std::atomic<int> empty_chunks{0};
      pool.ParallelFor(n, min_chunk, [&](int64_t begin, int64_t end) {
        if (begin >= end) empty_chunks.fetch_add(1);
        chunks.fetch_add(1);
        for (int64_t i = begin; i < end; ++i) hits[i].fetch_add(1);
      });
      INFO("n=" << n << " min_chunk=" << min_chunk);
      CHECK(empty_chunks.load() == 0);
      int64_t wrong = 0;
      for (int64_t i = 0; i < n; ++i) wrong += hits[i].load() != 1;
      CHECK(wrong == 0);
      CHECK(chunks.load() <= std::max<int64_t>(1, n / min_chunk));
    }
  }
}

TEST_CASE("Chunks are at least min_chunk long except possibly the last") {
  ThreadPool& pool = Pool(4);
  std::mutex mu;
  std::vector<std::pair<int64_t, int64_t>> ranges;
  pool.ParallelFor(1000, 300, [&](int64_t b, int64_t e) {
    std::lock_guard<std::mutex> lock(mu);
    ranges.emplace_back(b, e);
  });
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 0; i + 1 < ranges.size(); ++i) CHECK(ranges[i].second - ranges[i].first >= 300);
  CHECK(ranges.back().second == 1000);
}

TEST_CASE("Small loops run inline on the caller's thread") {
  ThreadPool& pool = Pool(4);
  const auto caller = std::this_thread::get_id();
  int calls = 0;
  pool.ParallelFor(10, 8, [&](int64_t b, int64_t e) {  // fewer than 2 chunks' worth
    CHECK(std::this_thread::get_id() == caller);
    CHECK(b == 0);
    CHECK(e == 10);
    ++calls;
  });
  CHECK(calls == 1);
  pool.ParallelFor(0, 1, [&](int64_t, int64_t) { ++calls; });  // n = 0: never called
  CHECK(calls == 1);
}

TEST_CASE("Nested ParallelFor calls run inline") {
  ThreadPool& pool = Pool(4);
  std::atomic<int> inner_calls{0};
  std::atomic<int> off_thread{0};
  std::atomic<int> split{0};  // inner loops that were split (they must not be)
  std::vector<std::atomic<int>> hits(64 * 64);
  pool.ParallelFor(64, 1, [&](int64_t b, int64_t e) {
    const auto outer_thread = std::this_thread::get_id();
    for (int64_t i = b; i < e; ++i) {
      pool.ParallelFor(64, 1, [&](int64_t ib, int64_t ie) {
        inner_calls.fetch_add(1);
        if (std::this_thread::get_id() != outer_thread) off_thread.fetch_add(1);
        if (ib != 0 || ie != 64) split.fetch_add(1);
        for (int64_t j = ib; j < ie; ++j) hits[i * 64 + j].fetch_add(1);
      });
    }
  });
  CHECK(inner_calls.load() == 64);  // one inline call per outer index
  CHECK(off_thread.load() == 0);
  CHECK(split.load() == 0);
  int wrong = 0;
  for (auto& h : hits) wrong += h.load() != 1;
  CHECK(wrong == 0);
}

TEST_CASE("A thread that runs kernels serially runs every loop inline") {
  ThreadPool& pool = Pool(4);
  int calls = 0, off_thread = 0, split = 0;
  std::thread pipeline([&] {  // as a prefetch thread does (Note [Pipeline threads])
    RunKernelsSeriallyOnThisThread();
    const auto self = std::this_thread::get_id();
    pool.ParallelFor(1 << 20, 1, [&](int64_t b, int64_t e) {
      ++calls;
      off_thread += std::this_thread::get_id() != self;
      split += b != 0 || e != (1 << 20);
    });
  });
  pipeline.join();
  CHECK(calls == 1);
  CHECK(off_thread == 0);
  CHECK(split == 0);
  int other_calls = 0;  // other threads are unaffected
  std::mutex mu;
  pool.ParallelFor(1 << 20, 1, [&](int64_t, int64_t) {
    std::lock_guard<std::mutex> lock(mu);
    ++other_calls;
  });
  CHECK(other_calls == 4);
}

TEST_CASE("Several threads may call ParallelFor at once") {
  ThreadPool& pool = Pool(3);
  std::atomic<int64_t> total{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      for (int rep = 0; rep < 20; ++rep) {
        pool.ParallelFor(1000, 10, [&](int64_t b, int64_t e) { total.fetch_add(e - b); });
      }
    });
  }
  for (auto& c : callers) c.join();
  CHECK(total.load() == 4 * 20 * 1000);
}

TEST_CASE("The intra-op pool is sized to the machine") {
  ThreadPool& pool = ThreadPool::Intra();
  CHECK(&pool == &ThreadPool::Intra());
  CHECK(pool.num_threads() == static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

TEST_CASE("set_num_threads limits later loops, clamped to the pool's size") {
  // Sized as the intra-op pool, so restoring leaves this thread's OpenMP team size as it was.
  const int max = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ThreadPool pool(max);
  CHECK(pool.max_threads() == max);
  CHECK(pool.set_num_threads(1) == 1);
  CHECK(pool.num_threads() == 1);
  int calls = 0;
  pool.ParallelFor(1000, 1, [&](int64_t, int64_t) { ++calls; });  // one chunk, inline
  CHECK(calls == 1);
  CHECK(pool.set_num_threads(0) == 1);
  CHECK(pool.set_num_threads(max + 5) <= max);
  CHECK(pool.set_num_threads(max) == pool.num_threads());
  CHECK(pool.max_threads() == max);
}

TEST_CASE("A single-thread pool runs everything inline") {
  ThreadPool& pool = Pool(1);
  const auto caller = std::this_thread::get_id();
  int calls = 0;
  pool.ParallelFor(1000, 1, [&](int64_t b, int64_t e) {
    CHECK(std::this_thread::get_id() == caller);
    CHECK(e - b == 1000);
    ++calls;
  });
  CHECK(calls == 1);
}

TEST_CASE("Destroying a pool joins its idle workers") {
  { ThreadPool pool(2); }
  {
    ThreadPool pool(3);
    std::atomic<int64_t> sum{0};
    pool.ParallelFor(100000, 10, [&](int64_t b, int64_t e) { sum += e - b; });
    CHECK(sum == 100000);
  }
  SUCCEED("the destructor returned");
}

}  // namespace
}  // namespace duet
