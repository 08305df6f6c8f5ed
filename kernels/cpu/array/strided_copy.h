// Copies between strided layouts: the one loop behind Slice, Pad, Tile, BroadcastTo, Concat and
// Split. It moves the largest contiguous blocks it can (memcpy), never element by element where
// a block copy works.
#pragma once

#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "core/thread_pool.h"

namespace duet {

// Bytes of copying below which a loop stays on the calling thread, and the least work a
// parallel chunk gets.
inline constexpr int64_t kParallelCopyBytes = 256 * 1024;

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

// Copies the elements of shape `dims` from `src` (element strides `src_strides`, 0 repeats an
// element) to `dst` (strides `dst_strides`), `elem_size` bytes each (1, 2, 4 or 8). Large copies
// split across `pool`.
void StridedCopy(absl::Span<const int64_t> dims, const void* src,
                 absl::Span<const int64_t> src_strides, void* dst,
                 absl::Span<const int64_t> dst_strides, int elem_size, ThreadPool& pool);

// Row-major element strides of `dims`.
absl::InlinedVector<int64_t, 8> ContiguousStrides(absl::Span<const int64_t> dims);

}  // namespace duet
