// data::parse_example and ExampleBuilder: tensors of the right dtypes and shapes, VarLen padding
// with lengths, scalars as parse_single_example, and errors thrown with the feature's name.
#include "io/record/example.h"

#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "core/constant.h"
#include "core/error.h"

namespace duet {
namespace {

using data::ExampleBuilder;
using data::FixedLen;
using data::VarLen;

std::string Example(int i) {
  std::vector<std::string> tags;
  for (int k = 0; k < i; ++k) tags.push_back(std::string(k + 1, 'a' + i));
  return ExampleBuilder()
      .add("image", constant<float>({i + 0.5f, -1.f, 2.f, 3.f, 4.f, 5.f}))
      .add("label", constant<int64_t>(10 + i))
      .add("name", std::vector<std::string>{"n" + std::to_string(i)})
      .add("tags", tags)
      .add("ids", from_vector(std::vector<int32_t>(i, 7)))
      .serialize();
}

const data::FeatureSpecs kSpecs = {{"image", FixedLen(kFloat32, {2, 3})},
                                   {"label", FixedLen(kInt64, {})},
                                   {"name", FixedLen(kString, {})},
                                   {"tags", VarLen(kString)},
                                   {"ids", VarLen(kInt64)}};

TEST_CASE("a batch of Examples gives (N, ...) tensors; VarLen ones padded, with lengths") {
  const Tensor serialized =
      from_vector(std::vector<std::string>{Example(0), Example(1), Example(2)});
  const data::ParsedFeatures parsed = data::parse_example(serialized, kSpecs);
  CHECK(parsed.size() == 7);
  CHECK(parsed.at("image").shape() == Shape{3, 2, 3});
  CHECK(parsed.at("image").to_vector<float>() ==
        std::vector<float>{0.5f, -1, 2, 3, 4, 5, 1.5f, -1, 2, 3, 4, 5, 2.5f, -1, 2, 3, 4, 5});
  CHECK(parsed.at("label").dtype() == kInt64);
  CHECK(parsed.at("label").shape() == Shape{3});
  CHECK(parsed.at("label").to_vector<int64_t>() == std::vector<int64_t>{10, 11, 12});
  CHECK(parsed.at("name").to_vector<std::string>() == std::vector<std::string>{"n0", "n1", "n2"});
  // tf.sparse.to_dense of TensorFlow's SparseTensor: rows padded with "" or 0.
  CHECK(parsed.at("tags").shape() == Shape{3, 2});
  CHECK(parsed.at("tags").to_vector<std::string>() ==
        std::vector<std::string>{"", "", "b", "", "c", "cc"});
  CHECK(parsed.at("tags/lengths").to_vector<int64_t>() == std::vector<int64_t>{0, 1, 2});
  CHECK(parsed.at("ids").to_vector<int64_t>() == std::vector<int64_t>{0, 0, 7, 0, 7, 7});
  CHECK(parsed.at("ids/lengths").to_vector<int64_t>() == std::vector<int64_t>{0, 1, 2});
}

TEST_CASE("a scalar is one Example, without the batch dim, as parse_single_example") {
  const data::ParsedFeatures parsed = data::parse_example(constant(Example(2)), kSpecs);
  CHECK(parsed.at("image").shape() == Shape{2, 3});
  CHECK(parsed.at("label").shape() == Shape{});
  CHECK(parsed.at("label").item<int64_t>() == 12);
  CHECK(parsed.at("tags").to_vector<std::string>() == std::vector<std::string>{"c", "cc"});
  CHECK(parsed.at("tags/lengths").shape() == Shape{});
  CHECK(parsed.at("tags/lengths").item<int64_t>() == 2);
  const data::ParsedFeatures single = data::parse_single_example(Example(2), kSpecs);
  CHECK(single.at("image").to_vector<float>() == parsed.at("image").to_vector<float>());
}

TEST_CASE("defaults fill missing features; a scalar default fills the whole shape") {
  const std::string empty = ExampleBuilder().serialize();
  const data::ParsedFeatures parsed =
      data::parse_example(std::vector<std::string>{empty, Example(1)},
                          {{"image", FixedLen(kFloat32, {2, 3}, constant(9.f))},
                           {"label", FixedLen(kInt64, {}, constant<int64_t>(-1))},
                           {"name", FixedLen(kString, {}, constant("none"))}});
  CHECK(parsed.at("image").to_vector<float>() ==
        std::vector<float>{9, 9, 9, 9, 9, 9, 1.5f, -1, 2, 3, 4, 5});
  CHECK(parsed.at("label").to_vector<int64_t>() == std::vector<int64_t>{-1, 11});
  CHECK(parsed.at("name").to_vector<std::string>() == std::vector<std::string>{"none", "n1"});
}

void ExpectError(const std::vector<std::string>& serialized, const data::FeatureSpecs& specs,
                 const std::string& message) {
  try {
    data::parse_example(serialized, specs);
    FAIL("no error; expected: " << message);
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == message);
  }
}

TEST_CASE("errors name the Example and the feature") {
  const std::string good = Example(1);
  ExpectError({good, ExampleBuilder().add("image", constant<float>({1.f})).serialize()},
              {{"label", FixedLen(kInt64, {})}},
              "parse_example: Example 1, feature \"label\": is required but missing (and has no "
              "default)");
  ExpectError(
      {good}, {{"label", FixedLen(kFloat32, {})}},
      "parse_example: Example 0, feature \"label\": has kind int64_list, expected float_list");
  ExpectError({good}, {{"image", FixedLen(kFloat32, {7})}},
              "parse_example: Example 0, feature \"image\": has 6 values, expected 7");
  ExpectError({good, good.substr(0, 9)}, {{"image", FixedLen(kFloat32, {6})}},
              "parse_example: Example 1 is not a valid serialized tf.train.Example (9 bytes of "
              "malformed protobuf)");
  ExpectError({good}, {{"image", FixedLen(kInt32, {6})}},
              "parse_example: feature \"image\": dtype int32 is not an Example's (float32, int64 "
              "or string)");
  ExpectError({good}, {{"image", FixedLen(kFloat32, {6}, constant<float>({1.f, 2.f}))}},
              "parse_example: feature \"image\": the default has shape (2,), expected (6,) or a "
              "scalar");
  CHECK_THROWS_WITH(data::parse_example(constant<float>({1.f}), kSpecs),
                    Catch::Contains("serialized must be a string scalar or vector"));
}

TEST_CASE("ExampleBuilder writes the lists TensorFlow's Example holds") {
  const tensorflow::Example example = ExampleBuilder()
                                          .add("f", constant<float>({{1.f, 2.f}, {3.f, 4.f}}))
                                          .add("b", constant<bool>({true, false}))
                                          .add("s", constant({"x", "yz"}))
                                          .add("f", constant<float>({5.f}))  // replaces
                                          .proto();
  const auto& features = example.features().feature();
  CHECK(features.at("f").float_list().value_size() == 1);
  CHECK(features.at("f").float_list().value(0) == 5.f);
  CHECK(features.at("b").int64_list().value(0) == 1);
  CHECK(features.at("b").int64_list().value(1) == 0);
  CHECK(features.at("s").bytes_list().value(1) == "yz");
  CHECK_THROWS_WITH(ExampleBuilder().add("d", constant<double>({1.0})),
                    Catch::Contains("feature \"d\" is float64"));
}

}  // namespace
}  // namespace duet
