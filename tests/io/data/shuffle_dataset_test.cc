// shuffle: reproducible under a seed, a new order per iteration with reshuffle_each_iteration,
// every element exactly once, and tf.data's buffer semantics. (The order is not TensorFlow's;
// nothing here compares with it.)
#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>

#include "duet.h"
#include "tests/io/data/dataset_test_util.h"

namespace duet::data {
namespace {

using testing::Scalars;
using V = std::vector<int64_t>;

V Sorted(V v) {
  std::sort(v.begin(), v.end());
  return v;
}

V Iota(int64_t n) {
  V v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

TEST_CASE("the same seed gives the same order; the multiset is kept") {
  const V a = Scalars(Dataset::range(100).shuffle(100, 7));
  const V b = Scalars(Dataset::range(100).shuffle(100, 7));
  const V c = Scalars(Dataset::range(100).shuffle(100, 8));
  CHECK(a == b);
  CHECK(a != c);
  CHECK(a != Iota(100));
  CHECK(Sorted(a) == Iota(100));
  CHECK(Sorted(c) == Iota(100));
}

TEST_CASE("reshuffle_each_iteration: each epoch another order, reproducibly") {
  const V epochs = Scalars(Dataset::range(20).shuffle(20, 3).repeat(3));
  REQUIRE(epochs.size() == 60);
  const V e0(epochs.begin(), epochs.begin() + 20), e1(epochs.begin() + 20, epochs.begin() + 40),
      e2(epochs.begin() + 40, epochs.end());
  for (const V& e : {e0, e1, e2}) CHECK(Sorted(e) == Iota(20));
  CHECK(e0 != e1);
  CHECK(e1 != e2);
  CHECK(Scalars(Dataset::range(20).shuffle(20, 3).repeat(3)) == epochs);

  // Each begin() of one dataset is a new iteration too; a dataset built afresh with the same
  // seed goes through the same orders.
  const Dataset ds = Dataset::range(20).shuffle(20, 3);
  const V first = Scalars(ds), second = Scalars(ds);
  CHECK(first == e0);
  CHECK(second == e1);
}

TEST_CASE("without reshuffle_each_iteration every epoch has the seed's order") {
  const V epochs =
      Scalars(Dataset::range(20).shuffle(20, 3, /*reshuffle_each_iteration=*/false).repeat(2));
  CHECK(V(epochs.begin(), epochs.begin() + 20) == V(epochs.begin() + 20, epochs.end()));
  CHECK(Sorted(V(epochs.begin(), epochs.begin() + 20)) == Iota(20));
}

TEST_CASE("a buffer of b elements: output p is among the first p + b inputs") {
  CHECK(Scalars(Dataset::range(10).shuffle(1, 5)) == Iota(10));
  const V out = Scalars(Dataset::range(200).shuffle(4, 11));
  CHECK(Sorted(out) == Iota(200));
  for (size_t p = 0; p < out.size(); ++p) CHECK(out[p] < static_cast<int64_t>(p) + 4);
}

TEST_CASE("no seed: still every element once") {
  CHECK(Sorted(Scalars(Dataset::range(50).shuffle(10))) == Iota(50));
}

}  // namespace
}  // namespace duet::data
