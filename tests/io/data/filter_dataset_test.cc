// filter with bool and bool-tensor predicates, and its errors.
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/io/data/dataset_test_util.h"
#include "tests/test_util.h"

namespace duet::data {
namespace {

using testing::Collect;
using testing::Scalars;
using V = std::vector<int64_t>;

TEST_CASE("filter keeps the elements its predicate accepts") {
  CHECK(Scalars(Dataset::range(10).filter([](Tensor x) { return x.item<int64_t>() % 3 == 0; })) ==
        V{0, 3, 6, 9});
  // tf.data's example: [1, 2, 3].filter(lambda x: x < 3) -> [1, 2].
  CHECK(Scalars(Dataset::range(1, 4).filter([](Tensor x) { return x < 3; })) == V{1, 2});
  CHECK(
      Scalars(Dataset::range(5).filter([](const std::vector<Tensor>&) { return false; })).empty());
}

TEST_CASE("a predicate must give a bool scalar") {
  duet::testing::ExpectError(
      [] { Collect(Dataset::range(1, 4).filter([](Tensor x) { return x * 2; })); },
      {"filter predicate failed on element 0", "bool", "int64"});
}

}  // namespace
}  // namespace duet::data
