// The threaded stages (parallel map, prefetch, parallel interleave): order, completeness, errors
// and stopping mid-iteration. These tests run no ops, so they link only core/ and io/data/ and
// build quickly under ThreadSanitizer:
//   bazel test --config=tsan //tests:io/data/threads/dataset_threads_test
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <random>
#include <thread>

#include "io/data/dataset.h"
#include "tests/io/data/dataset_test_util.h"
#include "tests/test_util.h"

namespace duet::data {
namespace {

using testing::Int64s;
using testing::Scalars;
using V = std::vector<int64_t>;

// Sleeps a random 0-2 ms, seeded by the element, so that workers finish out of order.
void SleepABit(const Tensor& x) {
  std::mt19937 random(static_cast<uint32_t>(x.item<int64_t>()));
  std::this_thread::sleep_for(std::chrono::microseconds(random() % 2000));
}

// x -> 10 * x, made without ops.
Tensor TimesTen(const Tensor& x) { return Int64s({10 * x.item<int64_t>()}, {}); }

TEST_CASE("parallel map: input order, or every element once when not deterministic") {
  auto slow_times_ten = [](Tensor x) {
    SleepABit(x);
    return TimesTen(x);
  };
  V expected;
  for (int64_t i = 0; i < 200; ++i) expected.push_back(10 * i);
  CHECK(Scalars(Dataset::range(200).map(slow_times_ten, 4)) == expected);
  V unordered = Scalars(Dataset::range(200).map(slow_times_ten, 4, /*deterministic=*/false));
  std::sort(unordered.begin(), unordered.end());
  CHECK(unordered == expected);
}

TEST_CASE("an error on a worker thread reaches the iterating thread with its index") {
  const Dataset ds = Dataset::range(50)
                         .map(
                             [](Tensor x) {
                               SleepABit(x);
                               if (x.item<int64_t>() == 17) throw std::runtime_error("bad pixel");
                               return x;
                             },
                             4)
                         .prefetch(3);
  duet::testing::ExpectError(
      [&] {
        for (auto& e : ds) (void)e;
      },
      {"map function failed on element 17", "bad pixel"});
  auto counted = ds.ignore_errors().begin();
  V seen;
  for (; counted != std::default_sentinel; ++counted) seen.push_back((*counted)[0].item<int64_t>());
  CHECK(seen.size() == 49);
  CHECK(counted.dropped() == 1);
}

TEST_CASE("parallel interleave keeps the serial order") {
  auto repeated = [](Tensor x) {
    return Dataset::from_tensors({x}).repeat(x.item<int64_t>() % 4 + 1);
  };
  const V serial = Scalars(Dataset::range(30).interleave(repeated, 3, 2));
  CHECK(serial.size() == 8 * 1 + 8 * 2 + 7 * 3 + 7 * 4);  // x % 4 = 0, 1, 2, 3
  CHECK(Scalars(Dataset::range(30).interleave(repeated, 3, 2, /*num_parallel_calls=*/3)) == serial);
}

// Counts the calls of a map function: running now, and in all.
struct CallCounter {
  std::atomic<int> running{0};
  std::atomic<int> total{0};
};

TEST_CASE("destroying an iterator mid-iteration stops and joins every thread") {
  CallCounter counter;
  const Dataset ds =
      Dataset::range(1000000)
          .repeat()
          .map(
              [&counter](Tensor x) {
                ++counter.running;
                ++counter.total;
                SleepABit(x);
                --counter.running;
                return x;
              },
              4)
          .interleave([](Tensor x) { return Dataset::from_tensors({x}).repeat(3); }, 3, 2, 3)
          .shuffle(8, 1)
          .prefetch(5);
  for (int round = 0; round < 3; ++round) {
    {
      auto it = ds.begin();
      for (int i = 0; i < 20 + 7 * round; ++i) ++it;
    }  // the iterator goes here: prefetch thread, interleave threads, map workers
    CHECK(counter.running.load() == 0);
    const int total = counter.total.load();
    CHECK(total > 0);
    std::this_thread::yield();
    CHECK(counter.total.load() == total);  // nothing runs after the iterator is gone
  }
}

TEST_CASE("several threads iterate one dataset at once") {
  const Dataset ds = Dataset::range(100).map(TimesTen, 2).shuffle(10, 4).cache().prefetch(2);
  std::vector<V> results(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&ds, &results, t] { results[t] = Scalars(ds); });
  }
  for (std::thread& t : threads) t.join();
  V expected;
  for (int64_t i = 0; i < 100; ++i) expected.push_back(10 * i);
  for (V& r : results) {
    std::sort(r.begin(), r.end());
    CHECK(r == expected);
  }
}

}  // namespace
}  // namespace duet::data
