// UnsortedSegmentSum: dtypes, id shapes, dropped negative ids, large sums, errors.
#include "ops/array/segment_ops.h"

#include <catch2/catch.hpp>
#include <limits>

#include "core/constant.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectError;
using testing::ExpectTensor;

TEMPLATE_TEST_CASE("UnsortedSegmentSum adds rows into segments", "", float, double, float16,
                   bfloat16, int32_t, int64_t) {
  const DType dt = DTypeOf<TestType>();
  const Tensor data = testing::SequenceTensor<TestType>({4, 2});  // rows (0,1) (2,3) (4,5) (6,7)
  // tf.math.unsorted_segment_sum(data, [0, 2, 0, 2], 4)
  ExpectTensor(unsorted_segment_sum(data, constant({0, 2, 0, 2}), 4), dt, {4, 2},
               {4, 6, 0, 0, 8, 10, 0, 0});
  // A negative id drops its row; int64 ids and num_segments.
  ExpectTensor(unsorted_segment_sum(data, constant<int64_t>({1, -1, 1, 0}), constant<int64_t>(2)),
               dt, {2, 2}, {6, 7, 4, 6});
}

TEST_CASE("UnsortedSegmentSum with ids of several dims, scalar ids and 1-D data") {
  const Tensor data = testing::SequenceTensor<float>({2, 2, 3});
  // ids (2, 2) over the leading dims of data: slices of 3.
  ExpectTensor(unsorted_segment_sum(data, constant({{1, 0}, {1, 1}}), 2), kFloat32, {2, 3},
               {3, 4, 5, 0 + 6 + 9, 1 + 7 + 10, 2 + 8 + 11});
  // ids with the shape of data: a sum of single elements.
  ExpectTensor(unsorted_segment_sum(constant({1.0, 2.0, 3.0, 4.0}), constant({2, 2, 0, 2}), 3),
               kFloat64, {3}, {3, 0, 7});
  // A scalar id puts the whole tensor into one segment.
  ExpectTensor(unsorted_segment_sum(constant({1.0, 2.0}), constant(1), 3), kFloat64, {3, 2},
               {0, 0, 1, 2, 0, 0});
  // No rows, or no segments: zeros, or nothing.
  ExpectTensor(unsorted_segment_sum(zeros({0, 2}), from_vector<int32_t>({}), 2), kFloat32, {2, 2},
               {0, 0, 0, 0});
  ExpectTensor(unsorted_segment_sum(constant({1.f, 2.f}), constant({-1, -1}), 0), kFloat32, {0},
               {});
}

TEST_CASE("UnsortedSegmentSum of a large tensor matches a host loop") {
  const int64_t rows = 3000, cols = 70, segments = 11;
  const Tensor data = testing::SequenceTensor<double>({rows, cols});
  std::vector<int32_t> ids(rows);
  for (int64_t r = 0; r < rows; ++r) ids[r] = static_cast<int32_t>((r * 7) % (segments + 1)) - 1;
  std::vector<double> expected(segments * cols, 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    if (ids[r] < 0) continue;
    for (int64_t c = 0; c < cols; ++c) expected[ids[r] * cols + c] += r * cols + c;
  }
  ExpectTensor(unsorted_segment_sum(data, from_vector(ids), segments), kFloat64, {segments, cols},
               expected, 0);
}

TEST_CASE("UnsortedSegmentSum wraps integer overflow and rounds 16-bit sums once") {
  const int32_t max = std::numeric_limits<int32_t>::max();
  ExpectTensor(unsorted_segment_sum(constant({max, 1}), constant({0, 0}), 1), kInt32, {1},
               {static_cast<double>(std::numeric_limits<int32_t>::min())});
  // 2048 + 1 + 1 in float16 accumulated in float16 would stay 2048 (spacing 2 there).
  const Tensor halves =
      from_vector(std::vector<float16>{float16(2048.f), float16(1.f), float16(1.f)});
  ExpectTensor(unsorted_segment_sum(halves, constant({0, 0, 0}), 1), kFloat16, {1}, {2050});
}

TEST_CASE("UnsortedSegmentSum reports bad ids, shapes and dtypes") {
  const Tensor data = zeros({3, 2});
  ExpectError(
      [&] {
        unsorted_segment_sum(data, constant({0, 3, 1}), 3);
      },
      {"UnsortedSegmentSum", "segment_ids[1] = 3 is not in [0, num_segments = 3)",
       "data: float32 (3, 2)", "segment_ids: int32 (3,)", "segment_ops_test.cc"});
  ExpectError(
      [&] {
        unsorted_segment_sum(data, constant<int64_t>({{0, 1}, {2, 7}, {0, 0}}), 5);
      },
      {"UnsortedSegmentSum", "segment_ids[1, 1] = 7 is not in [0, num_segments = 5)"});
  ExpectError(
      [&] {
        unsorted_segment_sum(data, constant({0, 1}), 3);
      },
      {"UnsortedSegmentSum", "segment_ids shape (2,) is not a prefix of data shape (3, 2)"});
  ExpectError(
      [&] { unsorted_segment_sum(constant({1.f}), constant({{0}}), 3); },
      {"UnsortedSegmentSum", "segment_ids shape (1, 1) is not a prefix of data shape (1,)"});
  ExpectError(
      [&] {
        unsorted_segment_sum(data, constant({0, 1, 2}), -1);
      },
      {"UnsortedSegmentSum", "num_segments must be non-negative, got -1"});
  ExpectError(
      [&] {
        unsorted_segment_sum(data, constant({0, 1, 2}), constant({2, 3}));
      },
      {"UnsortedSegmentSum", "num_segments must be a scalar, got shape (2,)"});
  ExpectError(
      [&] {
        unsorted_segment_sum(data, constant({0.f, 1.f, 2.f}), 3);
      },
      {"UnsortedSegmentSum", "dtype float32 is not supported", "Tindices"});
  ExpectError(
      [&] {
        unsorted_segment_sum(constant({true, false}), constant({0, 1}), 2);
      },
      {"UnsortedSegmentSum", "dtype bool is not supported"});
}

}  // namespace
}  // namespace duet
