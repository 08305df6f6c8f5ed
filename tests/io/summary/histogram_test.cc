// TensorFlow's histogram summaries: the default bucket limits and the HistogramProto of known
// inputs, as TensorFlow's HistogramSummary op writes them (values printed by
// make_tf_summaries.py with TensorFlow 2.21).
#include "io/summary/histogram.h"

#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

#include "catch2/catch.hpp"

namespace duet {
namespace {

std::vector<double> Limits(const tensorflow::HistogramProto& h) {
  return {h.bucket_limit().begin(), h.bucket_limit().end()};
}
std::vector<double> Counts(const tensorflow::HistogramProto& h) {
  return {h.bucket().begin(), h.bucket().end()};
}

TEST_CASE("the default bucket limits are TensorFlow's") {
  const std::vector<double>& limits = io::DefaultBucketLimits();
  // 1e-12 * 1.1^k < 1e20 for k = 0..773: 774 positive limits, DBL_MAX, their negatives and 0.
  REQUIRE(limits.size() == 2 * (774 + 1) + 1);
  CHECK(limits.front() == -DBL_MAX);
  CHECK(limits.back() == DBL_MAX);
  CHECK(limits[775] == 0.0);
  CHECK(limits[776] == 1e-12);
  CHECK(limits[777] == 1e-12 * 1.1);
  CHECK(limits[774] == -1e-12);
  CHECK(limits[limits.size() - 2] < 1e20);
  CHECK(limits[limits.size() - 2] * 1.1 >= 1e20);
  for (size_t i = 1; i < limits.size(); ++i) REQUIRE(limits[i - 1] < limits[i]);
  for (size_t i = 0; i < limits.size(); ++i) REQUIRE(limits[i] == -limits[limits.size() - 1 - i]);
}

TEST_CASE("a histogram of [1, 2, 3] matches TensorFlow's") {
  tensorflow::HistogramProto h = io::MakeHistogram(std::vector<double>{1, 2, 3}).value();
  CHECK(h.min() == 1.0);
  CHECK(h.max() == 3.0);
  CHECK(h.num() == 3.0);
  CHECK(h.sum() == 6.0);
  CHECK(h.sum_squares() == 14.0);
  CHECK(Limits(h) == std::vector<double>{0.917246389039776, 1.0089710279437536, 1.9661990955585713,
                                         2.1628190051144287, 2.8787120958073054, 3.1665833053880363,
                                         DBL_MAX});
  CHECK(Counts(h) == std::vector<double>{0, 1, 0, 1, 0, 1, 0});
}

TEST_CASE("a histogram with negatives, zero and tiny values matches TensorFlow's") {
  tensorflow::HistogramProto h =
      io::MakeHistogram(std::vector<double>{-0.5, 0.0, 0.25, 1e-13, 7.0}).value();
  CHECK(h.min() == -0.5);
  CHECK(h.max() == 7.0);
  CHECK(h.num() == 5.0);
  CHECK(h.sum() == 6.7500000000001);
  CHECK(h.sum_squares() == 49.3125);
  // 0 and 1e-13 share [0, 1e-12): a value equal to a limit counts in the bucket above it.
  CHECK(Limits(h) == std::vector<double>{-0.5177616740489182, -0.47069243095356195, 0.0, 1e-12,
                                         0.24153964213356663, 0.2656936063469233,
                                         6.7878525393626115, 7.466637793298873, DBL_MAX});
  CHECK(Counts(h) == std::vector<double>{0, 1, 0, 2, 0, 1, 0, 1, 0});
}

TEST_CASE("a histogram of [0] matches TensorFlow's") {
  tensorflow::HistogramProto h = io::MakeHistogram(std::vector<double>{0.0}).value();
  CHECK(Limits(h) == std::vector<double>{0.0, 1e-12, DBL_MAX});
  CHECK(Counts(h) == std::vector<double>{0, 1, 0});
}

TEST_CASE("an empty histogram has one empty bucket at DBL_MAX") {
  tensorflow::HistogramProto h = io::MakeHistogram({}).value();
  CHECK(h.num() == 0);
  CHECK(Limits(h) == std::vector<double>{DBL_MAX});
  CHECK(Counts(h) == std::vector<double>{0});
}

TEST_CASE("a histogram rejects NaN and infinity, naming the element") {
  for (double bad : {std::nan(""), std::numeric_limits<double>::infinity()}) {
    absl::StatusOr<tensorflow::HistogramProto> h = io::MakeHistogram(std::vector<double>{1.0, bad});
    REQUIRE_FALSE(h.ok());
    CHECK(h.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(h.status().message()).find("element 1") != std::string::npos);
  }
}

}  // namespace
}  // namespace duet
