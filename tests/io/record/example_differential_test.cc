// The fast Example parser against libprotobuf's generated one on many generated Examples and
// their mutations: both must fail, or both give the same values.
#include <random>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "proto/example.pb.h"
#include "tests/io/record/reference_example_parser.h"

namespace duet {
namespace {

using io::FeatureKind;

const std::vector<std::string> kNames = {"a", "b", "c", "image", "label", ""};

tensorflow::Example RandomExample(std::mt19937& rng) {
  tensorflow::Example example;
  auto& features = *example.mutable_features()->mutable_feature();
  const int n = rng() % 6;
  for (int i = 0; i < n; ++i) {
    tensorflow::Feature& feature = features[kNames[rng() % kNames.size()]];
    const int count = rng() % 4;
    switch (rng() % 4) {
      case 0:
        for (int v = 0; v < count; ++v) feature.mutable_float_list()->add_value(rng() % 100 * 0.5f);
        if (count == 0) feature.mutable_float_list();
        break;
      case 1:
        for (int v = 0; v < count; ++v) {
          feature.mutable_int64_list()->add_value(static_cast<int64_t>(rng()) - (1LL << 31));
        }
        if (count == 0) feature.mutable_int64_list();
        break;
      case 2:
        for (int v = 0; v < count; ++v) {
          feature.mutable_bytes_list()->add_value(std::string(rng() % 5, 'a' + rng() % 26));
        }
        if (count == 0) feature.mutable_bytes_list();
        break;
      default:
        break;  // no kind
    }
  }
  return example;
}

std::string Mutate(std::string bytes, std::mt19937& rng, const std::string& other) {
  switch (rng() % 5) {
    case 0:
      return bytes.substr(0, bytes.empty() ? 0 : rng() % bytes.size());
    case 1:
      for (int i = 0, n = 1 + rng() % 3; i < n && !bytes.empty(); ++i) {
        bytes[rng() % bytes.size()] ^= static_cast<char>(1 << (rng() % 8));
      }
      return bytes;
    case 2:
      return bytes + other;  // protobuf merges the two
    case 3:
      bytes.insert(bytes.empty() ? 0 : rng() % bytes.size(), 1, static_cast<char>(rng()));
      return bytes;
    default:
      return bytes;
  }
}

TEST_CASE("the fast parser agrees with libprotobuf on generated and mutated Examples") {
  const std::string kDefaultName = "dflt";
  const float kDefaultFloats[2] = {-1, -2};
  const int64_t kDefaultInt = 99;
  const std::vector<io::FeatureRequest> requests = {
      {"a", FeatureKind::kFloat, false, 2, kDefaultFloats},
      {"b", FeatureKind::kInt64, false, 1, &kDefaultInt},
      {"c", FeatureKind::kBytes, false, 1, &kDefaultName},
      {"image", FeatureKind::kFloat, true},
      {"label", FeatureKind::kInt64, true},
      {"", FeatureKind::kBytes, true}};
  std::mt19937 rng(22);
  int both_ok = 0, both_failed = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string bytes = RandomExample(rng).SerializeAsString();
    const std::string input = Mutate(bytes, rng, RandomExample(rng).SerializeAsString());
    const absl::string_view view = input;
    const std::string difference = testing::CompareWithReference({&view, 1}, requests);
    INFO("input " << i << ": " << testing::Hex(input));
    REQUIRE(difference == "");
    tensorflow::Example unused;
    (unused.ParseFromString(input) ? both_ok : both_failed) += 1;
  }
  // Both outcomes are exercised often.
  CHECK(both_ok > 5000);
  CHECK(both_failed > 500);
}

TEST_CASE("batches agree too, their outputs concatenated") {
  const std::vector<io::FeatureRequest> requests = {{"image", FeatureKind::kFloat, true},
                                                    {"label", FeatureKind::kInt64, true},
                                                    {"c", FeatureKind::kBytes, true}};
  std::mt19937 rng(7);
  for (int i = 0; i < 200; ++i) {
    std::vector<std::string> batch;
    for (int e = 0; e < 16; ++e) batch.push_back(RandomExample(rng).SerializeAsString());
    const std::vector<absl::string_view> views(batch.begin(), batch.end());
    REQUIRE(testing::CompareWithReference(views, requests) == "");
  }
}

}  // namespace
}  // namespace duet
