// prefetch: order, errors, lifetime. (Stopping threaded pipelines:
// threads/dataset_threads_test.cc.)
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/io/data/dataset_test_util.h"
#include "tests/test_util.h"

namespace duet::data {
namespace {

using testing::Scalars;
using V = std::vector<int64_t>;

TEST_CASE("prefetch keeps the order and the elements") {
  V expected;
  for (int64_t i = 0; i < 100; ++i) expected.push_back(i);
  for (int64_t size : {int64_t{1}, int64_t{3}, int64_t{kAutotune}, int64_t{0}}) {
    INFO("buffer_size " << size);
    CHECK(Scalars(Dataset::range(100).prefetch(size)) == expected);
  }
  CHECK(Scalars(Dataset::range(0).prefetch(2)).empty());
}

TEST_CASE("prefetch passes errors through in order and goes on after them") {
  const Dataset ds = Dataset::range(6)
                         .map([](Tensor x) {
                           if (x.item<int64_t>() == 2) throw std::runtime_error("odd record");
                           return x;
                         })
                         .prefetch(4);
  auto it = ds.begin();
  CHECK((*it)[0].item<int64_t>() == 0);
  ++it;
  CHECK((*it)[0].item<int64_t>() == 1);
  duet::testing::ExpectError([&] { ++it; }, {"map function failed on element 2", "odd record"});
  ++it;
  CHECK((*it)[0].item<int64_t>() == 3);
}

TEST_CASE("a dataset may go before its iterator") {
  std::optional<Dataset::Iterator> it;
  {
    const Dataset ds = Dataset::range(5).map([](Tensor x) { return x * 10; }, 2).prefetch(2);
    it.emplace(ds.begin());
  }
  V seen;
  for (; *it != std::default_sentinel; ++*it) seen.push_back((**it)[0].item<int64_t>());
  CHECK(seen == V{0, 10, 20, 30, 40});
}

}  // namespace
}  // namespace duet::data
