// repeat, take, skip, shard, concatenate and zip against hand-computed element lists.
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/io/data/dataset_test_util.h"
#include "tests/test_util.h"

namespace duet::data {
namespace {

using testing::Collect;
using testing::Int64s;
using testing::Int64Values;
using testing::Scalars;
using V = std::vector<int64_t>;

TEST_CASE("repeat: count times, or forever") {
  CHECK(Scalars(Dataset::range(3).repeat(2)) == V{0, 1, 2, 0, 1, 2});
  CHECK(Scalars(Dataset::range(3).repeat(0)).empty());
  CHECK(Scalars(Dataset::range(2).repeat().take(7)) == V{0, 1, 0, 1, 0, 1, 0});
  CHECK(Scalars(Dataset::range(0).repeat()).empty());  // an empty epoch ends it
}

TEST_CASE("take and skip") {
  CHECK(Scalars(Dataset::range(10).take(3)) == V{0, 1, 2});
  CHECK(Scalars(Dataset::range(3).take(5)) == V{0, 1, 2});
  CHECK(Scalars(Dataset::range(3).take(-1)) == V{0, 1, 2});
  CHECK(Scalars(Dataset::range(3).take(0)).empty());
  CHECK(Scalars(Dataset::range(5).skip(3)) == V{3, 4});
  CHECK(Scalars(Dataset::range(5).skip(7)).empty());
  CHECK(Scalars(Dataset::range(5).skip(-1)).empty());
  CHECK(Scalars(Dataset::range(5).skip(0)) == V{0, 1, 2, 3, 4});
}

TEST_CASE("shard: every num_shards-th element from index, and its cardinality") {
  CHECK(Scalars(Dataset::range(10).shard(3, 0)) == V{0, 3, 6, 9});
  CHECK(Scalars(Dataset::range(10).shard(3, 2)) == V{2, 5, 8});
  CHECK(Scalars(Dataset::range(10).shard(1, 0)) == V{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  for (int64_t i = 0; i < 3; ++i) {
    CHECK(Dataset::range(10).shard(3, i).cardinality() ==
          static_cast<int64_t>(Scalars(Dataset::range(10).shard(3, i)).size()));
  }
  CHECK(Dataset::range(4).repeat().shard(2, 1).cardinality() == kInfiniteCardinality);
  CHECK(Scalars(Dataset::range(4).repeat().shard(2, 1).take(3)) == V{1, 3, 1});
  duet::testing::ExpectError([] { Dataset::range(3).shard(2, 2); },
                             {"shard: index 2 is not in [0, num_shards) for num_shards 2"});
  duet::testing::ExpectError([] { Dataset::range(3).shard(0, 0); }, {"num_shards 0"});
}

TEST_CASE("concatenate: one dataset after the other") {
  // tf.data's example: range(1, 4).concatenate(range(4, 8)) -> 1..7.
  CHECK(Scalars(Dataset::range(1, 4).concatenate(Dataset::range(4, 8))) == V{1, 2, 3, 4, 5, 6, 7});
  CHECK(Scalars(Dataset::range(0).concatenate(Dataset::range(2))) == V{0, 1});
}

TEST_CASE("concatenate refuses other component dtypes") {
  const Dataset floats = Dataset::from_tensor_slices({constant({1.f, 2.f})});
  duet::testing::ExpectError([&] { Collect(Dataset::range(2).concatenate(floats)); },
                             {"concatenate", "(float32)", "(int64)"});
}

TEST_CASE("zip puts the components side by side and ends with the shortest") {
  // tf.data's example: zip(range(1, 4), range(4, 7)) -> (1, 4), (2, 5), (3, 6).
  const Dataset zipped = Dataset::zip({Dataset::range(1, 4), Dataset::range(4, 9)});
  const std::vector<Element> elements = Collect(zipped);
  REQUIRE(elements.size() == 3);
  for (int i = 0; i < 3; ++i) {
    REQUIRE(elements[i].size() == 2);
    CHECK(elements[i][0].item<int64_t>() == i + 1);
    CHECK(elements[i][1].item<int64_t>() == i + 4);
  }
}

}  // namespace
}  // namespace duet::data
