// ignore_errors(): failed elements dropped and counted.
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/io/data/dataset_test_util.h"
#include "tests/test_util.h"

namespace duet::data {
namespace {

using V = std::vector<int64_t>;

// Fails on multiples of 3.
Tensor RejectMultiplesOf3(Tensor x) {
  if (x.item<int64_t>() % 3 == 0) throw std::runtime_error("bad record");
  return x;
}

TEST_CASE("ignore_errors skips failed elements and counts them") {
  for (int workers : {0, 2}) {
    INFO("num_parallel_calls " << workers);
    const Dataset ds = Dataset::range(10).map(RejectMultiplesOf3, workers).ignore_errors();
    auto it = ds.begin();
    V seen;
    for (; it != ds.end(); ++it) seen.push_back((*it)[0].item<int64_t>());
    CHECK(seen == V{1, 2, 4, 5, 7, 8});
    CHECK(it.dropped() == 4);  // 0, 3, 6, 9
  }
}

TEST_CASE("ignore_errors after prefetch and batch") {
  const Dataset ds =
      Dataset::range(12).map(RejectMultiplesOf3).prefetch(2).ignore_errors().batch(4);
  auto it = ds.begin();
  CHECK((*it)[0].to_vector<int64_t>() == V{1, 2, 4, 5});
  ++it;
  CHECK((*it)[0].to_vector<int64_t>() == V{7, 8, 10, 11});
  ++it;
  CHECK(it == ds.end());
  CHECK(it.dropped() == 4);
}

TEST_CASE("without ignore_errors the error reaches the loop") {
  duet::testing::ExpectError([] { testing::Collect(Dataset::range(10).map(RejectMultiplesOf3)); },
                             {"map function failed on element 0", "bad record"});
}

}  // namespace
}  // namespace duet::data
