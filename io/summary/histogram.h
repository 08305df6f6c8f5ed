// Histograms as TensorFlow's summary ops build them (tensorflow/core/lib/histogram): the same
// bucket limits and the same collapsing of empty buckets, so TensorBoard draws duet's histograms
// exactly as TensorFlow's.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "proto/summary.pb.h"

namespace duet::io {

// TensorFlow's default bucket limits: 0, the geometric series 1e-12 * 1.1^k below 1e20 and its
// negatives, and ±DBL_MAX, in increasing order (1551 limits).
const std::vector<double>& DefaultBucketLimits();

// The HistogramProto of `values` over the default limits: min, max, num, sum, sum_squares, and
// the buckets, each counting the values in [previous limit, its limit), where runs of empty
// buckets are merged into one entry at the run's last limit (EncodeToProto without
// preserve_zero_buckets). No values gives one empty bucket at DBL_MAX. A NaN or an infinity is
// InvalidArgument (TensorFlow: "Nan in summary histogram").
absl::StatusOr<tensorflow::HistogramProto> MakeHistogram(absl::Span<const double> values);

}  // namespace duet::io
