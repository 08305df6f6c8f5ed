// The sources: from_tensor_slices, from_tensors, range, from_generator, against hand-computed
// element lists (tf.data's documented results).
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

TEST_CASE("from_tensor_slices yields the rows of axis 0 of every component") {
  const Tensor images = Int64s({1, 2, 3, 4, 5, 6}, {3, 2});
  const Tensor labels = constant({0.5f, 1.5f, 2.5f});
  const std::vector<Element> elements = Collect(Dataset::from_tensor_slices({images, labels}));
  REQUIRE(elements.size() == 3);
  for (int i = 0; i < 3; ++i) {
    REQUIRE(elements[i].size() == 2);
    duet::testing::ExpectTensor(elements[i][0], kInt64, {2}, {2.0 * i + 1, 2.0 * i + 2});
    duet::testing::ExpectTensor(elements[i][1], kFloat32, {}, {i + 0.5});
  }
}

TEST_CASE("from_tensor_slices names the shapes when axis 0 sizes differ") {
  duet::testing::ExpectError(
      [] {
        Dataset::from_tensor_slices({Int64s({1, 2, 3}, {3}), constant({1.f, 2.f})});
      },
      {"from_tensor_slices", "int64 (3,)", "float32 (2,)"});
  duet::testing::ExpectError([] { Dataset::from_tensor_slices({Int64s({7}, {})}); },
                             {"axis 0", "int64 ()"});
}

TEST_CASE("from_tensors is one element, every iteration") {
  const Dataset ds = Dataset::from_tensors({Int64s({1, 2}, {2})});
  CHECK(Int64Values(ds) == std::vector<std::vector<int64_t>>{{1, 2}});
  CHECK(Int64Values(ds) == std::vector<std::vector<int64_t>>{{1, 2}});
}

TEST_CASE("range gives int64 scalars as Python's range") {
  CHECK(Scalars(Dataset::range(5)) == std::vector<int64_t>{0, 1, 2, 3, 4});
  CHECK(Scalars(Dataset::range(2, 5)) == std::vector<int64_t>{2, 3, 4});
  CHECK(Scalars(Dataset::range(1, 5, 2)) == std::vector<int64_t>{1, 3});
  CHECK(Scalars(Dataset::range(5, 1, -2)) == std::vector<int64_t>{5, 3});
  CHECK(Scalars(Dataset::range(3, 3)).empty());
  const Element first = *Dataset::range(3).begin();
  CHECK(first[0].dtype() == kInt64);
  CHECK(first[0].rank() == 0);
  duet::testing::ExpectError([] { Dataset::range(0, 3, 0); }, {"range", "step"});
}

TEST_CASE("from_generator runs a fresh generator per iteration") {
  int factories = 0;
  const Dataset ds = Dataset::from_generator([&factories]() -> Generator {
    ++factories;
    return [i = int64_t{0}]() mutable -> std::optional<Element> {
      if (i == 3) return std::nullopt;
      return Element{Int64s({10 * i++}, {})};
    };
  });
  CHECK(Scalars(ds) == std::vector<int64_t>{0, 10, 20});
  CHECK(Scalars(ds.repeat(2)) == std::vector<int64_t>{0, 10, 20, 0, 10, 20});
  CHECK(factories == 3);
}

TEST_CASE("a generator's exception names the element") {
  const Dataset ds = Dataset::from_generator([]() -> Generator {
    return [i = 0]() mutable -> std::optional<Element> {
      if (i == 2) throw std::runtime_error("disk on fire");
      return Element{Int64s({i++}, {})};
    };
  });
  duet::testing::ExpectError([&] { Collect(ds); },
                             {"generator failed on element 2", "disk on fire"});
}

}  // namespace
}  // namespace duet::data
