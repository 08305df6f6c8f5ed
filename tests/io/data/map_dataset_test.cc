// map: serial and parallel, ordered and not, callables of every accepted form, duet::function,
// and errors that reach the iterating thread with the element index.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <random>
#include <thread>

#include "duet.h"
#include "tests/io/data/dataset_test_util.h"
#include "tests/test_util.h"

namespace duet::data {
namespace {

using testing::Collect;
using testing::Int64s;
using testing::Scalars;
using V = std::vector<int64_t>;

V Iota(int64_t n) {
  V v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

// Sleeps a random 0-2 ms (seeded per element, so the workers finish out of order).
void SleepABit(int64_t element) {
  std::mt19937 random(static_cast<uint32_t>(element));
  std::this_thread::sleep_for(std::chrono::microseconds(random() % 2000));
}

TEST_CASE("map runs fn on every element (API.md's example)") {
  const Dataset evens = Dataset::range(0, 10).map(
      [](std::vector<Tensor> e) { return std::vector<Tensor>{e[0] * 2}; }, 2);
  CHECK(Scalars(evens) == V{0, 2, 4, 6, 8, 10, 12, 14, 16, 18});
  CHECK(Scalars(Dataset::range(4).map([](Tensor x) { return x + 1; })) == V{1, 2, 3, 4});
}

TEST_CASE("map unpacks components and flattens tuples") {
  const Dataset pairs = Dataset::zip({Dataset::range(3), Dataset::range(10, 13)});
  const std::vector<Element> out =
      Collect(pairs.map([](Tensor a, Tensor b) { return std::make_tuple(b - a, a * b, a); }));
  REQUIRE(out.size() == 3);
  for (int64_t i = 0; i < 3; ++i) {
    REQUIRE(out[i].size() == 3);
    CHECK(out[i][0].item<int64_t>() == 10);
    CHECK(out[i][1].item<int64_t>() == i * (10 + i));
    CHECK(out[i][2].item<int64_t>() == i);
  }
  duet::testing::ExpectError(
      [] { Collect(Dataset::range(2).map([](Tensor a, Tensor b) { return a + b; })); },
      {"map function failed on element 0", "takes 2", "1 components"});
}

TEST_CASE("parallel map keeps the input order") {
  const Dataset ds = Dataset::range(300).map(
      [](Tensor x) {
        SleepABit(x.item<int64_t>());
        return x;
      },
      4);
  CHECK(Scalars(ds) == Iota(300));
}

TEST_CASE("parallel map with deterministic = false yields every element once") {
  const Dataset ds = Dataset::range(300).map(
      [](Tensor x) {
        SleepABit(x.item<int64_t>());
        return x;
      },
      4, /*deterministic=*/false);
  V out = Scalars(ds);
  std::sort(out.begin(), out.end());
  CHECK(out == Iota(300));
}

TEST_CASE("an error in map reaches the loop with the element index") {
  auto failing = [](Tensor x) {
    if (x.item<int64_t>() == 17) throw std::runtime_error("bad pixel");
    return x;
  };
  for (int workers : {0, 3}) {
    INFO("num_parallel_calls " << workers);
    const Dataset ds = Dataset::range(30).map(failing, workers);
    duet::testing::ExpectError(
        [&] {
          for (auto& e : ds) (void)e;
        },
        {"map function failed on element 17", "bad pixel"});
    // The iteration goes on after the failed element.
    auto it = ds.begin();
    for (int i = 0; i < 16; ++i) ++it;  // at element 16
    CHECK_THROWS_AS(++it, Error);
    CHECK((*it).empty());
    ++it;
    CHECK((*it)[0].item<int64_t>() == 18);
  }
}

TEST_CASE("a duet::function maps batches with its cached plan, also from worker threads") {
  auto scale = duet::function([](Tensor x) { return x * 3 + 1; });
  const Dataset ds = Dataset::range(40).batch(4).map(scale, 3).unbatch();
  V expected;
  for (int64_t i = 0; i < 40; ++i) expected.push_back(3 * i + 1);
  CHECK(Scalars(ds) == expected);
  CHECK(scale.trace_count() == 1);  // every batch has the signature int64 (4)
}

TEST_CASE("map refuses a negative num_parallel_calls") {
  duet::testing::ExpectError([] { Dataset::range(3).map([](Tensor x) { return x; }, -5); },
                             {"num_parallel_calls", "-5"});
}

}  // namespace
}  // namespace duet::data
