// How the array kernels' strided copies are planned, on any device: a copy between two strided
// layouts with its dims merged as far as both layouts allow, and the copy that each of Slice,
// StridedSlice(Grad), ReverseV2, Pad, Tile, BroadcastTo, Transpose, ConcatV2, Split(V), Pack and
// Unpack makes.
// kernels/cpu/array/strided_copy.h runs such copies on the CPU, kernels/cuda/array/strided_copy.h
// on a GPU.
#pragma once

#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "kernels/kernel_registry.h"

namespace duet {

// Dims with the element strides of a source and a destination layout.
struct StridedDims {
  absl::InlinedVector<int64_t, 8> dims, src, dst;
  int rank() const { return static_cast<int>(dims.size()); }
};

// The same copy with size-1 dims dropped and adjacent dims merged where both layouts are
// contiguous across them. An empty result (rank 0) means a single element; a zero-size dim makes
// `empty` true.
struct CoalescedDims {
  StridedDims dims;
  bool empty = false;
};
CoalescedDims Coalesce(absl::Span<const int64_t> dims, absl::Span<const int64_t> src_strides,
                       absl::Span<const int64_t> dst_strides);

// Row-major element strides of `dims`.
absl::InlinedVector<int64_t, 8> ContiguousStrides(absl::Span<const int64_t> dims);

// One copy: the elements of shape `layout.dims` from the source (element strides `layout.src`, 0
// repeating an element, starting `src_offset` elements in) to the destination (`layout.dst`, from
// `dst_offset`).
struct StridedCopyPlan {
  StridedDims layout;
  int64_t src_offset = 0, dst_offset = 0;
};

// Slice: `out` (of shape `out`) is the block of x (of shape `x`) that starts at `begin`.
StridedCopyPlan SliceCopy(const Shape& x, const Shape& out, absl::Span<const int64_t> begin);

// StridedSlice: `sizes[d]` elements of x along each dim d, from begin[d] in steps of strides[d]
// (negative steps walk backwards), to a contiguous output of dims `sizes`.
StridedCopyPlan StridedSliceCopy(const Shape& x, absl::Span<const int64_t> begin,
                                 absl::Span<const int64_t> strides,
                                 absl::Span<const int64_t> sizes);

// StridedSlice and StridedSliceGrad: the copy out of a tensor of shape `input` that the call's
// begin, end, strides (inputs 1 to 3) and masks select, resolved as the shape function resolves
// them (ops/array/strided_slice_spec.h).
absl::StatusOr<StridedCopyPlan> StridedSliceCopy(const KernelContext& ctx, const Shape& input);

// ReverseV2: x with the dims listed in `axes` (in [0, rank), each once) read backwards.
StridedCopyPlan ReverseCopy(const Shape& x, absl::Span<const int64_t> axes);
// ReverseV2's copy of input 0 along the axes that input 1 lists (negative ones from the end).
absl::StatusOr<StridedCopyPlan> ReverseCopy(const KernelContext& ctx);

// The same elements copied the other way, from `plan`'s destination to its source: how
// StridedSliceGrad puts dy back where StridedSlice took it from.
StridedCopyPlan InverseCopy(const StridedCopyPlan& plan);

// Pad: x into `out` (zero-filled first), paddings[2 * d] elements in along each dim d.
StridedCopyPlan PadCopy(const Shape& x, const Shape& out, absl::Span<const int64_t> paddings);

// Tile: the output, of dims (m0*d0, m1*d1, ...), is row-major identical to dims (m0, d0, m1, d1,
// ...); reading x with stride 0 along each m_i makes tiling one broadcasting copy.
StridedCopyPlan TileCopy(const Shape& x, absl::Span<const int64_t> multiples);

// BroadcastTo: x read with stride 0 along the dims it lacks or has as 1.
StridedCopyPlan BroadcastToCopy(const Shape& x, const Shape& out);

// Transpose: out[i] = x[perm(i)], the output walked in order and x read through permuted strides.
StridedCopyPlan TransposeCopy(const Shape& x, const Shape& out, absl::Span<const int64_t> perm);

// ConcatV2, Split and SplitV along one axis. Viewed as 2-D (`outer` rows: the dims before the
// axis; a row of `row` elements: the rest), each part is a block of `widths[k]` consecutive
// columns of the whole, starting at column `offsets[k]`.
struct ColumnBlocks {
  int64_t outer = 1, row = 1;
  absl::InlinedVector<int64_t, 8> widths, offsets;

  int num_parts() const { return static_cast<int>(widths.size()); }
  // The copy of part k into the whole (ConcatV2).
  StridedCopyPlan ConcatCopy(int k) const;
  // The copy of part k out of the whole (Split, SplitV).
  StridedCopyPlan SplitCopy(int k) const;
};

// ConcatV2's blocks: inputs [0, n) joined along the axis input n into output 0 (n = num_inputs -
// 1). The output must have elements.
ColumnBlocks ConcatBlocks(KernelContext& ctx);

// Pack's blocks: each input, a slice of the output along `axis` (the attr, of the output's rank),
// is one column block of width (the input's elements / outer). The output must have elements.
ColumnBlocks PackBlocks(KernelContext& ctx, int64_t axis);
// Unpack's blocks: the input cut along `axis` into the outputs. The input must have elements.
ColumnBlocks UnpackBlocks(KernelContext& ctx, int64_t axis);

// Split (inputs split_dim, value) and SplitV (value, size_splits, split_dim): the value input cut
// along split_dim into the outputs.
enum class SplitKind { kSplit, kSplitV };
const Tensor& SplitValue(const KernelContext& ctx, SplitKind kind);
// The blocks of the split; the value must have elements.
ColumnBlocks SplitBlocks(KernelContext& ctx, SplitKind kind);

}  // namespace duet
