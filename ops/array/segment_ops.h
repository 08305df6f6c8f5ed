// Segment reductions: UnsortedSegmentSum (the scatter-add that GatherV2's gradient needs) and
// DenseBincount (a sum of weights by value).
#pragma once

#include <cstdint>

#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet {

// Sums slices of `data` into `num_segments` segments (op UnsortedSegmentSum):
//   output[i, ...] = sum of data[j..., ...] over every index tuple j with segment_ids[j...] == i.
// `segment_ids` (int32/int64) has a shape that is a prefix of data's; the output has shape
// [num_segments] + data.shape[segment_ids.rank:], and segments that receive nothing are 0.
// As in TensorFlow, a negative id drops its slice; an id >= num_segments is an InvalidArgument
// error naming it. dtypes: float32/64, float16, bfloat16, int32/64 (integer sums wrap).
Tensor unsorted_segment_sum(const Tensor& data, const Tensor& segment_ids, int64_t num_segments,
                            OpSite site = {});
// Same, with num_segments as a scalar int32/int64 tensor.
Tensor unsorted_segment_sum(const Tensor& data, const Tensor& segment_ids,
                            const Tensor& num_segments, OpSite site = {});

// Per row of `input` (int32/int64, 1-D: one row; 2-D: [rows, n]), how often each value in
// [0, size) occurs, or with `weights` (input's shape; an empty tensor for none) the sum of the
// weights at its occurrences (op DenseBincount; Keras' CategoryEncoding). The output is [size] or
// [rows, size] of weights' dtype (int32/64, float32/64). Values >= size are dropped, negative ones
// are an InvalidArgument error. With `binary_output`, 1 where a value occurs at all.
Tensor dense_bincount(const Tensor& input, int64_t size, const Tensor& weights,
                      bool binary_output = false, OpSite site = {});

}  // namespace duet
