#include "io/summary/histogram.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace duet::io {

const std::vector<double>& DefaultBucketLimits() {
  static const std::vector<double>* const limits = [] {
    // Exactly TensorFlow's loop (repeated multiplication, not pow), so every limit matches its
    // double to the last bit.
    std::vector<double> positive;
    for (double v = 1.0e-12; v < 1.0e20; v *= 1.1) positive.push_back(v);
    positive.push_back(DBL_MAX);
    auto* all = new std::vector<double>;
    all->reserve(2 * positive.size() + 1);
    for (auto it = positive.rbegin(); it != positive.rend(); ++it) all->push_back(-*it);
    all->push_back(0.0);
    all->insert(all->end(), positive.begin(), positive.end());
    return all;
  }();
  return *limits;
}

absl::StatusOr<tensorflow::HistogramProto> MakeHistogram(absl::Span<const double> values) {
  const std::vector<double>& limits = DefaultBucketLimits();
  std::vector<double> counts(limits.size(), 0.0);
  double min = limits.back(), max = -DBL_MAX, sum = 0, sum_squares = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    double v = values[i];
    if (!std::isfinite(v)) {
      return absl::InvalidArgumentError(
          absl::StrCat("a histogram needs finite values; element ", i, " is ", v));
    }
    // upper_bound, as TensorFlow: a value equal to a limit counts in the next bucket.
    counts[std::upper_bound(limits.begin(), limits.end(), v) - limits.begin()] += 1;
    min = std::min(min, v);
    max = std::max(max, v);
    sum += v;
    sum_squares += v * v;
  }
  tensorflow::HistogramProto proto;
  proto.set_min(min);
  proto.set_max(max);
  proto.set_num(static_cast<double>(values.size()));
  proto.set_sum(sum);
  proto.set_sum_squares(sum_squares);
  for (size_t i = 0; i < counts.size();) {
    double end = limits[i];
    double count = counts[i++];
    if (count <= 0) {  // a run of empty buckets becomes one, at the run's last limit
      while (i < counts.size() && counts[i] <= 0) end = limits[i++];
    }
    proto.add_bucket_limit(end);
    proto.add_bucket(count);
  }
  return proto;
}

}  // namespace duet::io
