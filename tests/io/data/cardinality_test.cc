// Dataset::cardinality(): tf.data's values for each transformation (INFINITE -1, UNKNOWN -2, as
// tf.data.experimental.cardinality returns them), and the number of elements an iteration of a
// finite dataset actually yields.
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/io/data/dataset_test_util.h"

namespace duet::data {
namespace {

int64_t Count(const Dataset& ds) {
  int64_t n = 0;
  for (auto it = ds.begin(); it != ds.end(); ++it) ++n;
  return n;
}

Dataset Ten() { return Dataset::range(10); }

TEST_CASE("cardinality of finite datasets is the number of elements iterated") {
  const Dataset rows = Dataset::from_tensor_slices({zeros({10, 3})});
  const std::vector<std::pair<Dataset, int64_t>> cases = {
      {rows, 10},
      {Dataset::from_tensors({zeros({10, 3})}), 1},
      {Dataset::range(0, 10, 3), 4},
      {Dataset::range(10, 0, -3), 4},
      {Dataset::range(5, 5), 0},
      {rows.batch(4), 3},
      {rows.batch(4, /*drop_remainder=*/true), 2},
      {rows.batch(4).repeat(3), 9},
      {rows.map([](Element e) { return e; }).shuffle(5, 1).prefetch(2).cache(), 10},
      {rows.take(4), 4},
      {rows.take(20), 10},
      {rows.take(-1), 10},
      {rows.skip(3), 7},
      {rows.skip(20), 0},
      {rows.skip(-1), 0},
      {Ten().concatenate(Dataset::range(5)), 15},
      {Dataset::zip({Ten(), Dataset::range(3)}), 3},
      {Dataset::zip({Ten().repeat(), Dataset::range(3)}), 3},
      {Ten().repeat().take(25), 25},
      {Ten().repeat(0), 0},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO("case " << i);
    CHECK(cases[i].first.cardinality() == cases[i].second);
    CHECK(Count(cases[i].first) == cases[i].second);
  }
}

TEST_CASE("cardinality is infinite after repeat() and unknown where only iterating can tell") {
  const Dataset odd = Ten().filter([](const Tensor& x) { return x.item<int64_t>() % 2 == 1; });
  CHECK(Ten().repeat().cardinality() == kInfiniteCardinality);
  CHECK(Ten().repeat().shuffle(4).batch(2).cardinality() == kInfiniteCardinality);
  CHECK(Ten().repeat().skip(5).cardinality() == kInfiniteCardinality);
  CHECK(Ten().concatenate(Ten().repeat()).cardinality() == kInfiniteCardinality);
  CHECK(Dataset::zip({Ten().repeat(), Ten().repeat()}).cardinality() == kInfiniteCardinality);
  CHECK(odd.cardinality() == kUnknownCardinality);
  CHECK(odd.repeat().cardinality() == kInfiniteCardinality);  // as tf.data says
  CHECK(odd.take(3).cardinality() == kUnknownCardinality);
  CHECK(odd.repeat(2).cardinality() == kUnknownCardinality);
  CHECK(Ten().batch(2).unbatch().cardinality() == kUnknownCardinality);
  CHECK(Ten()
            .interleave([](const Tensor& x) { return Dataset::from_tensors({x}); }, 2)
            .cardinality() == kUnknownCardinality);
  CHECK(Dataset::zip({odd, Ten()}).cardinality() == kUnknownCardinality);
  CHECK(Ten().concatenate(odd).cardinality() == kUnknownCardinality);
  CHECK(TFRecordDataset("missing.tfrecord").cardinality() == kUnknownCardinality);
}

}  // namespace
}  // namespace duet::data
