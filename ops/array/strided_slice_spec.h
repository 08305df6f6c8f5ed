// A strided slice spec (StridedSlice's and StridedSliceGrad's begin, end, strides and five masks)
// resolved against an input shape: what the shape function, the CPU kernels and the CUDA kernels
// all compute from, so that they agree on every corner of TensorFlow's semantics.
//
// Note [Strided slice specs]
// Entry i of begin/end/strides (the "sparse" spec, as Python's x[a:b:s, ...] writes it) refers to
// an input dim, except where a mask bit i says otherwise:
//   ellipsis_mask:    entry i is `...`: as many full dims as the input has beyond the other
//                     entries (at most one bit). Without one, an ellipsis is implied at the end.
//   new_axis_mask:    entry i inserts an output dim of size 1 (begin/end/stride ignored).
//   shrink_axis_mask: entry i takes the single element begin[i] (negative counts from the end;
//                     out of range is an error) and drops the dim.
//   begin_mask/end_mask: begin[i]/end[i] is ignored and the range starts/ends at the end of the
//                     dim the stride's sign starts/ends at.
// Other begins and ends count from the end when negative and are clamped into the dim, so the
// number of elements along a dim is ceil((end - begin) / stride) when positive, else 0. The
// resolution follows TensorFlow's ValidateStridedSliceOp (tensorflow/core/util/strided_slice_op.cc)
// step by step, including which combinations are errors.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "core/shape.h"
#include "ops/array/array_attrs.h"

namespace duet {

// The masks of a strided slice (TensorFlow's attrs of the same names): bit i refers to entry i of
// begin, end and strides (Note [Strided slice specs] in ops/array/strided_slice_spec.h).
struct StridedSliceMasks {
  int64_t begin_mask = 0;
  int64_t end_mask = 0;
  int64_t ellipsis_mask = 0;
  int64_t new_axis_mask = 0;
  int64_t shrink_axis_mask = 0;
};

// The masks of a StridedSlice or StridedSliceGrad call, from any context that reads attrs by key
// (ShapeContext, KernelContext, GradientContext).
template <typename Context>
StridedSliceMasks StridedSliceMasksOf(const Context& ctx) {
  return {ctx.attr(StridedSliceAttrs::kBeginMask), ctx.attr(StridedSliceAttrs::kEndMask),
          ctx.attr(StridedSliceAttrs::kEllipsisMask), ctx.attr(StridedSliceAttrs::kNewAxisMask),
          ctx.attr(StridedSliceAttrs::kShrinkAxisMask)};
}

// A spec resolved against an input of known rank: along each input dim d, `sizes[d]` elements
// begin[d], begin[d] + strides[d], ... (strides may be negative). begin[d] and strides[d] are
// meaningful only where sizes[d] is known and positive. The output is `sizes` with new axes (size
// 1) inserted and shrunk dims (size 1) dropped, in the same row-major order.
struct StridedSliceSpec {
  absl::InlinedVector<int64_t, 8> begin, strides;
  Shape sizes;   // TensorFlow's processing shape; -1 where unknown
  Shape output;  // TensorFlow's final shape; -1 where unknown
};

// Resolves a spec of `num_entries` entries against `input` (known rank; unknown dims allowed).
// `begin`, `end` and `strides` are the entries' values, nullopt when unknown before running (the
// output then has unknown dims where they matter, but its rank is always known). InvalidArgument,
// with the offending values, for: entries of different lengths, more than one ellipsis, more
// entries than input dims, a zero stride, a negative stride on a shrunk dim, and a shrunk index
// outside its dim.
absl::StatusOr<StridedSliceSpec> ResolveStridedSlice(
    const Shape& input, int64_t num_entries, const std::optional<std::vector<int64_t>>& begin,
    const std::optional<std::vector<int64_t>>& end,
    const std::optional<std::vector<int64_t>>& strides, const StridedSliceMasks& masks);

}  // namespace duet
