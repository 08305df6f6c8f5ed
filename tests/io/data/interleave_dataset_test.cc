// interleave: tf.data's documented orders, serial and with threads.
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/io/data/dataset_test_util.h"
#include "tests/test_util.h"

namespace duet::data {
namespace {

using testing::Collect;
using testing::Scalars;
using V = std::vector<int64_t>;

// from_tensors(x).repeat(n) for every x.
auto RepeatedTimes(int64_t n) {
  return [n](Tensor x) { return Dataset::from_tensors({x}).repeat(n); };
}

TEST_CASE("interleave: tf.data's example with cycle_length 2, block_length 4") {
  // range(1, 6).interleave(lambda x: from_tensors(x).repeat(6), cycle_length=2, block_length=4)
  const V expected{1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3,
                   3, 4, 4, 4, 4, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5};
  for (int parallel : {0, 2}) {
    INFO("num_parallel_calls " << parallel);
    CHECK(Scalars(Dataset::range(1, 6).interleave(RepeatedTimes(6), 2, 4, parallel)) == expected);
  }
}

TEST_CASE("interleave with cycle_length 2, block_length 1 alternates") {
  const V expected{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 5, 5, 5};
  for (int parallel : {0, 3}) {
    INFO("num_parallel_calls " << parallel);
    CHECK(Scalars(Dataset::range(1, 6).interleave(RepeatedTimes(3), 2, 1, parallel)) == expected);
  }
  // Datasets of different lengths: range(x) for x = 1, 2, 3 with cycle_length 3.
  CHECK(Scalars(Dataset::range(1, 4).interleave(
            [](Tensor x) { return Dataset::range(x.item<int64_t>()); }, 3)) == V{0, 0, 0, 1, 1, 2});
}

TEST_CASE("an error in interleave's function names the element") {
  auto failing = [](Tensor x) {
    if (x.item<int64_t>() == 2) throw std::runtime_error("no such file");
    return Dataset::from_tensors({x});
  };
  duet::testing::ExpectError([&] { Collect(Dataset::range(4).interleave(failing, 2)); },
                             {"interleave function failed on element 2", "no such file"});
}

}  // namespace
}  // namespace duet::data
