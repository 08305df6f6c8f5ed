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

TEST_CASE("over from_tensor_slices (indices buffered): the order of buffering elements") {
  // Note [Indexed sources]: range() is iterated and its elements buffered; from_tensor_slices is
  // shuffled by index. The same seed must give the same order for every buffer size.
  const Tensor column = constant(Iota(300), {300});
  for (int64_t buffer : {1, 7, 64, 299, 300, 1000}) {
    INFO("buffer " << buffer);
    CHECK(Scalars(Dataset::from_tensor_slices({column}).shuffle(buffer, 5).repeat(2)) ==
          Scalars(Dataset::range(300).shuffle(buffer, 5).repeat(2)));
  }
}

TEST_CASE("shuffled rows of from_tensor_slices are views of the source") {
  const Tensor images = constant({{0.f, 1.f}, {2.f, 3.f}, {4.f, 5.f}});
  int64_t rows = 0;
  for (const auto& e : Dataset::from_tensor_slices({images}).shuffle(3, 1)) {
    CHECK(e[0].shares_buffer_with(images));
    const float first = e[0].to_vector<float>()[0];
    CHECK(e[0].to_vector<float>() == std::vector<float>{first, first + 1});
    ++rows;
  }
  CHECK(rows == 3);
}

TEST_CASE("no seed: still every element once") {
  CHECK(Sorted(Scalars(Dataset::range(50).shuffle(10))) == Iota(50));
}

}  // namespace
}  // namespace duet::data
