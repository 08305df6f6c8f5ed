// io::ParseExamples on Examples with known values, every error, and protobuf's merge rules
// (hand-encoded wire bytes whose meaning the protobuf encoding spec fixes).
#include "io/record/example_parser.h"

#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "proto/example.pb.h"

namespace duet {
namespace {

using io::FeatureKind;
using io::FeatureRequest;

tensorflow::Example MakeExample(const std::vector<float>& image, int64_t label,
                                const std::vector<std::string>& tags) {
  tensorflow::Example example;
  auto& features = *example.mutable_features()->mutable_feature();
  for (float v : image) features["image"].mutable_float_list()->add_value(v);
  features["label"].mutable_int64_list()->add_value(label);
  for (const std::string& tag : tags) features["tags"].mutable_bytes_list()->add_value(tag);
  return example;
}

// One fixed-length float, int64 and bytes feature and three variable-length ones.
struct Parse {
  std::vector<FeatureRequest> requests;
  std::vector<io::FeatureOutput> outputs;
  std::vector<float> image;
  std::vector<int64_t> label;
  std::vector<std::string> name;
  absl::Status status;

  Parse(const std::vector<std::string>& serialized, int64_t image_count = 3,
        const int64_t* label_default = nullptr, const std::string* name_default = nullptr) {
    requests = {{"image", FeatureKind::kFloat, false, image_count, nullptr},
                {"label", FeatureKind::kInt64, false, 1, label_default},
                {"name", FeatureKind::kBytes, false, 1, name_default},
                {"tags", FeatureKind::kBytes, true},
                {"weights", FeatureKind::kFloat, true},
                {"ids", FeatureKind::kInt64, true}};
    outputs.resize(requests.size());
    image.resize(serialized.size() * image_count);
    label.resize(serialized.size());
    name.resize(serialized.size());
    outputs[0].fixed = image.data();
    outputs[1].fixed = label.data();
    outputs[2].fixed = name.data();
    const std::vector<absl::string_view> views(serialized.begin(), serialized.end());
    status = io::ParseExamples(views, requests, absl::MakeSpan(outputs));
  }
  std::string message() const { return std::string(status.message()); }
};

const std::string kName = "who";
const int64_t kNoLabel = -1;

TEST_CASE("features land in their outputs, variable-length ones with their lengths") {
  tensorflow::Example a = MakeExample({1.5f, -2, 3}, 7, {"x", "yy"});
  tensorflow::Example b = MakeExample({0, 0.25f, 1e30f}, -(int64_t{1} << 40), {});
  auto& b_features = *b.mutable_features()->mutable_feature();
  b_features["name"].mutable_bytes_list()->add_value(std::string("n\0m", 3));
  b_features["weights"].mutable_float_list()->add_value(0.5f);
  b_features["ids"].mutable_int64_list()->add_value(3);
  b_features["ids"].mutable_int64_list()->add_value(-4);
  b_features.erase("tags");
  b_features["unrequested"].mutable_int64_list()->add_value(1);
  Parse parsed({a.SerializeAsString(), b.SerializeAsString()}, 3, nullptr, &kName);
  REQUIRE(parsed.status.ok());
  CHECK(parsed.image == std::vector<float>{1.5f, -2, 3, 0, 0.25f, 1e30f});
  CHECK(parsed.label == std::vector<int64_t>{7, -(int64_t{1} << 40)});
  CHECK(parsed.name == std::vector<std::string>{"who", std::string("n\0m", 3)});
  CHECK(parsed.outputs[3].strings == std::vector<std::string>{"x", "yy"});
  CHECK(parsed.outputs[3].lengths == std::vector<int64_t>{2, 0});
  CHECK(parsed.outputs[4].floats == std::vector<float>{0.5f});
  CHECK(parsed.outputs[4].lengths == std::vector<int64_t>{0, 1});
  CHECK(parsed.outputs[5].int64s == std::vector<int64_t>{3, -4});
  CHECK(parsed.outputs[5].lengths == std::vector<int64_t>{0, 2});
}

TEST_CASE("a missing feature takes its default, or is an error naming it and the Example") {
  tensorflow::Example a = MakeExample({1, 2, 3}, 7, {});
  tensorflow::Example b = MakeExample({4, 5, 6}, 8, {});
  b.mutable_features()->mutable_feature()->erase("label");
  SECTION("with a default") {
    Parse parsed({a.SerializeAsString(), b.SerializeAsString()}, 3, &kNoLabel, &kName);
    REQUIRE(parsed.status.ok());
    CHECK(parsed.label == std::vector<int64_t>{7, -1});
  }
  SECTION("a feature with no kind set counts as missing") {
    (*b.mutable_features()->mutable_feature())["label"];  // an empty Feature
    Parse parsed({a.SerializeAsString(), b.SerializeAsString()}, 3, &kNoLabel, &kName);
    REQUIRE(parsed.status.ok());
    CHECK(parsed.label == std::vector<int64_t>{7, -1});
  }
  SECTION("required") {
    Parse parsed({a.SerializeAsString(), b.SerializeAsString()}, 3, nullptr, &kName);
    REQUIRE(absl::IsInvalidArgument(parsed.status));
    CHECK(parsed.message() ==
          "Example 1, feature \"label\": is required but missing (and has no default)");
  }
}

TEST_CASE("a list of the wrong kind or length is an error naming the feature and Example") {
  tensorflow::Example a = MakeExample({1, 2, 3}, 7, {});
  SECTION("kind") {
    auto& label = (*a.mutable_features()->mutable_feature())["label"];
    label.mutable_float_list()->add_value(7);  // the oneof: float_list replaces int64_list
    Parse parsed({a.SerializeAsString()}, 3, nullptr, &kName);
    CHECK(parsed.message() ==
          "Example 0, feature \"label\": has kind float_list, expected int64_list");
  }
  SECTION("count") {
    Parse parsed({MakeExample({1, 2, 3}, 7, {}).SerializeAsString(), a.SerializeAsString()}, 4,
                 nullptr, &kName);
    CHECK(parsed.message() == "Example 0, feature \"image\": has 3 values, expected 4");
  }
  SECTION("an empty list is present, with zero values, not missing") {
    auto& label = (*a.mutable_features()->mutable_feature())["label"];
    label.mutable_int64_list()->clear_value();
    Parse parsed({a.SerializeAsString()}, 3, &kNoLabel, &kName);
    CHECK(parsed.message() == "Example 0, feature \"label\": has 0 values, expected 1");
  }
}

TEST_CASE("malformed protos are an error naming the Example") {
  const std::string good = MakeExample({1, 2, 3}, 7, {"t"}).SerializeAsString();
  for (const std::string& bad : {good.substr(0, good.size() - 1), std::string("\x0a\x05\x0a", 3),
                                 good + std::string("\x00", 1), std::string("\xff", 1)}) {
    Parse parsed({good, bad}, 3, nullptr, &kName);
    REQUIRE(absl::IsInvalidArgument(parsed.status));
    CHECK_THAT(parsed.message(),
               Catch::StartsWith("Example 1 is not a valid serialized tf.train.Example"));
  }
}

// Protobuf wire bytes by hand.
std::string Varint(uint64_t value) {
  std::string out;
  do {
    out.push_back(static_cast<char>((value & 0x7f) | (value >= 0x80 ? 0x80 : 0)));
    value >>= 7;
  } while (value != 0);
  return out;
}
std::string Field(int number, const std::string& bytes) {  // length-delimited
  return Varint(static_cast<uint64_t>(number) << 3 | 2) + Varint(bytes.size()) + bytes;
}
std::string Entry(const std::string& key, const std::string& feature) {
  return Field(1, Field(1, key) + Field(2, feature));
}
std::string Example(const std::string& entries) { return Field(1, entries); }
std::string Float(float value) {
  std::string out(4, '\0');
  std::memcpy(out.data(), &value, 4);
  return out;
}

TEST_CASE("protobuf's rules: later entries replace, merged fields append, unpacked values count") {
  const std::string image = Field(2, Field(1, Float(1) + Float(2) + Float(3)));  // packed
  const std::string label = Field(3, Field(1, Varint(7)));
  SECTION("unpacked floats and int64s") {
    const std::string unpacked_image =
        Field(2, "\x0d" + Float(4) + "\x0d" + Float(5) + Field(1, Float(6)));
    const std::string unpacked_label = Field(3, std::string("\x08") + Varint(9));
    Parse parsed({Example(Entry("image", unpacked_image) + Entry("label", unpacked_label))}, 3,
                 nullptr, &kName);
    REQUIRE(parsed.status.ok());
    CHECK(parsed.image == std::vector<float>{4, 5, 6});
    CHECK(parsed.label == std::vector<int64_t>{9});
  }
  SECTION("a later entry of the same key replaces the earlier one") {
    const std::string other = Field(2, Field(1, Float(7) + Float(8) + Float(9)));
    Parse parsed({Example(Entry("image", image) + Entry("label", label) + Entry("image", other))},
                 3, nullptr, &kName);
    REQUIRE(parsed.status.ok());
    CHECK(parsed.image == std::vector<float>{7, 8, 9});
  }
  SECTION("two Examples' bytes concatenated merge their features") {
    const std::string first = Example(Entry("image", image) + Entry("label", label));
    const std::string second = Example(Entry("label", Field(3, Field(1, Varint(11)))));
    Parse parsed({first + second}, 3, nullptr, &kName);
    REQUIRE(parsed.status.ok());
    CHECK(parsed.image == std::vector<float>{1, 2, 3});
    CHECK(parsed.label == std::vector<int64_t>{11});
  }
  SECTION("an entry's value twice merges: same-kind lists append, another kind replaces") {
    const std::string split_image =
        Field(1, Field(1, "image") + Field(2, Field(2, Field(1, Float(1)))) +
                     Field(2, Field(2, Field(1, Float(2) + Float(3)))));
    const std::string switched_label =
        Field(1, Field(1, "label") + Field(2, Field(2, Field(1, Float(5)))) +
                     Field(2, Field(3, Field(1, Varint(6)))));
    Parse parsed({Field(1, split_image + switched_label)}, 3, nullptr, &kName);
    REQUIRE(parsed.status.ok());
    CHECK(parsed.image == std::vector<float>{1, 2, 3});
    CHECK(parsed.label == std::vector<int64_t>{6});
  }
  SECTION("unknown fields are skipped, field number 0 and stray end-group tags are malformed") {
    const std::string unknown = std::string("\x18\x05") + Field(9, "zz") + "\x23\x08\x01\x24";
    Parse parsed({Example(Entry("image", image + unknown) + Entry("label", label)) + unknown}, 3,
                 nullptr, &kName);
    CHECK(parsed.status.ok());
    CHECK(parsed.image == std::vector<float>{1, 2, 3});
    CHECK_FALSE(Parse({Example(Entry("image", image)) + "\x02\x00"}).status.ok());
    CHECK_FALSE(Parse({Example(Entry("image", image)) + "\x24"}).status.ok());
  }
  SECTION("keys must be UTF-8, as for any proto3 string") {
    const std::string bad_key = Example(Entry("\xff\xfe", image));
    CHECK_FALSE(
        Parse({Example(Entry("image", image) + Entry("label", label)) + bad_key}).status.ok());
  }
}

}  // namespace
}  // namespace duet
