// cache(): after one complete iteration, later ones replay without running what is before it.
#include <algorithm>
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/io/data/dataset_test_util.h"

namespace duet::data {
namespace {

using testing::Scalars;
using V = std::vector<int64_t>;

TEST_CASE("cache runs the pipeline before it once") {
  int calls = 0;
  const Dataset ds = Dataset::range(4)
                         .map([&calls](Tensor x) {
                           ++calls;
                           return x * x;
                         })
                         .cache();
  CHECK(Scalars(ds) == V{0, 1, 4, 9});
  CHECK(calls == 4);
  CHECK(Scalars(ds.repeat(3)) == V{0, 1, 4, 9, 0, 1, 4, 9, 0, 1, 4, 9});
  CHECK(calls == 4);
}

TEST_CASE("a partial iteration caches nothing") {
  int calls = 0;
  const Dataset ds = Dataset::range(4)
                         .map([&calls](Tensor x) {
                           ++calls;
                           return x;
                         })
                         .cache();
  CHECK(Scalars(ds.take(2)) == V{0, 1});
  CHECK(Scalars(ds) == V{0, 1, 2, 3});
  CHECK(calls == 2 + 4);
  CHECK(Scalars(ds) == V{0, 1, 2, 3});
  CHECK(calls == 6);
}

TEST_CASE("cache before shuffle: the same elements in a new order each epoch") {
  const V epochs = Scalars(Dataset::range(10).cache().shuffle(10, 2).repeat(2));
  V a(epochs.begin(), epochs.begin() + 10), b(epochs.begin() + 10, epochs.end());
  CHECK(a != b);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  CHECK(a == b);
}

}  // namespace
}  // namespace duet::data
