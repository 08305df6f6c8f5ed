// batch, padded_batch and unbatch against tf.data's documented examples and hand-computed lists.
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
using VV = std::vector<std::vector<int64_t>>;

// tf.data's padded_batch example: range(1, 5).map(lambda x: tf.fill([x], x)).
Dataset Ragged() {
  return Dataset::range(1, 5).map([](Tensor x) {
    const int64_t n = x.item<int64_t>();
    return Int64s(std::vector<int64_t>(n, n), {n});
  });
}

TEST_CASE("batch stacks along a new axis 0; the remainder is kept or dropped") {
  // tf.data's example: range(8).batch(3) -> [0 1 2] [3 4 5] [6 7].
  CHECK(Int64Values(Dataset::range(8).batch(3)) == VV{{0, 1, 2}, {3, 4, 5}, {6, 7}});
  CHECK(Int64Values(Dataset::range(8).batch(3, /*drop_remainder=*/true)) ==
        VV{{0, 1, 2}, {3, 4, 5}});
  const std::vector<Element> batches = Collect(
      Dataset::from_tensor_slices({Int64s({1, 2, 3, 4, 5, 6}, {3, 2}), constant({1.f, 2.f, 3.f})})
          .batch(2));
  REQUIRE(batches.size() == 2);
  duet::testing::ExpectTensor(batches[0][0], kInt64, {2, 2}, {1, 2, 3, 4});
  duet::testing::ExpectTensor(batches[0][1], kFloat32, {2}, {1, 2});
  duet::testing::ExpectTensor(batches[1][0], kInt64, {1, 2}, {5, 6});
  duet::testing::ExpectTensor(batches[1][1], kFloat32, {1}, {3});
}

TEST_CASE("batch names the element and the shapes that do not stack") {
  duet::testing::ExpectError([] { Collect(Ragged().batch(2)); },
                             {"batch", "element 1", "(2,)", "element 0", "(1,)"});
}

TEST_CASE("padded_batch pads to the batch's largest shape with zeros") {
  // tf.data: A.padded_batch(2) -> [[1 0] [2 2]], [[3 3 3 0] [4 4 4 4]].
  const std::vector<Element> b = Collect(Ragged().padded_batch(2));
  REQUIRE(b.size() == 2);
  duet::testing::ExpectTensor(b[0][0], kInt64, {2, 2}, {1, 0, 2, 2});
  duet::testing::ExpectTensor(b[1][0], kInt64, {2, 4}, {3, 3, 3, 0, 4, 4, 4, 4});
}

TEST_CASE("padded_batch pads to given shapes with given values") {
  // tf.data: A.padded_batch(2, padded_shapes=5, padding_values=-1).
  const std::vector<Element> b = Collect(Ragged().padded_batch(2, {Shape{5}}, {Int64s({-1}, {})}));
  REQUIRE(b.size() == 2);
  duet::testing::ExpectTensor(b[0][0], kInt64, {2, 5}, {1, -1, -1, -1, -1, 2, 2, -1, -1, -1});
  duet::testing::ExpectTensor(b[1][0], kInt64, {2, 5}, {3, 3, 3, -1, -1, 4, 4, 4, 4, -1});
  duet::testing::ExpectError([] { Collect(Ragged().padded_batch(2, {Shape{3}})); },
                             {"padded_batch", "(4,)", "larger than the padded shape (3,)"});
}

TEST_CASE("padded_batch pads every axis of 2-d components") {
  const Dataset ds = Dataset::from_generator([]() -> Generator {
    return [i = 0]() mutable -> std::optional<Element> {
      if (i == 2) return std::nullopt;
      return Element{i++ == 0 ? Int64s({1, 2}, {1, 2}) : Int64s({3, 4, 5, 6, 7, 8}, {3, 2})};
    };
  });
  const std::vector<Element> b = Collect(ds.padded_batch(2, {Shape{-1, 3}}));
  REQUIRE(b.size() == 1);
  duet::testing::ExpectTensor(b[0][0], kInt64, {2, 3, 3},
                              {1, 2, 0, 0, 0, 0, 0, 0, 0, 3, 4, 0, 5, 6, 0, 7, 8, 0});
}

TEST_CASE("unbatch is batch's inverse") {
  CHECK(Scalars(Dataset::range(7).batch(3).unbatch()) == std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6});
  const std::vector<Element> rows = Collect(
      Dataset::from_tensors({Int64s({1, 2, 3, 4}, {2, 2}), constant({5.f, 6.f})}).unbatch());
  REQUIRE(rows.size() == 2);
  duet::testing::ExpectTensor(rows[1][0], kInt64, {2}, {3, 4});
  duet::testing::ExpectTensor(rows[1][1], kFloat32, {}, {6});
  duet::testing::ExpectError(
      [] {
        Collect(Dataset::from_tensors({Int64s({1, 2}, {2}), constant({5.f})}).unbatch());
      },
      {"unbatch", "element 0", "(2,)", "(1,)"});
}

TEST_CASE("string and uint8 components batch, pad and unbatch") {
  Tensor bytes = Tensor::Empty(kUInt8, {3, 2});
  for (int i = 0; i < 6; ++i) bytes.mutable_data<uint8_t>()[i] = static_cast<uint8_t>(250 + i);
  const Tensor words = constant({std::string("a"), std::string(40, 'b'), std::string("c")});
  const Dataset ds = Dataset::from_tensor_slices({words, bytes});
  const std::vector<Element> b = Collect(ds.batch(2));
  REQUIRE(b.size() == 2);
  CHECK(b[0][0].dtype() == kString);
  CHECK(b[0][0].to_vector<std::string>() == std::vector<std::string>{"a", std::string(40, 'b')});
  CHECK(b[1][0].to_vector<std::string>() == std::vector<std::string>{"c"});
  CHECK(b[0][1].dtype() == kUInt8);
  CHECK(b[0][1].shape() == Shape{2, 2});
  CHECK(b[0][1].to_vector<uint8_t>() == std::vector<uint8_t>{250, 251, 252, 253});
  const std::vector<Element> rows = Collect(ds.batch(2).unbatch());
  REQUIRE(rows.size() == 3);
  CHECK(rows[1][0].item<std::string>() == std::string(40, 'b'));
  CHECK(rows[2][1].to_vector<uint8_t>() == std::vector<uint8_t>{254, 255});
  // Strings pad with "" or a given string.
  const Dataset lists = Dataset::from_generator([]() -> Generator {
    return [i = 0]() mutable -> std::optional<Element> {
      if (i == 2) return std::nullopt;
      return Element{i++ == 0 ? constant({std::string("x")})
                              : constant({std::string("y"), std::string("z")})};
    };
  });
  CHECK(Collect(lists.padded_batch(2))[0][0].to_vector<std::string>() ==
        std::vector<std::string>{"x", "", "y", "z"});
  CHECK(Collect(lists.padded_batch(2, {}, {constant("pad")}))[0][0].to_vector<std::string>() ==
        std::vector<std::string>{"x", "pad", "y", "z"});
}

}  // namespace
}  // namespace duet::data
