// Copies between strided layouts on the CPU: the one loop behind Slice, Pad, Tile, BroadcastTo,
// Concat, Split and Transpose. It moves the largest contiguous blocks it can (memcpy), never
// element by element where a block copy works. The layouts are planned device-neutrally in
// kernels/common/strided_copy_plan.h.
#pragma once

#include <cstdint>

#include "absl/types/span.h"
#include "core/thread_pool.h"
#include "kernels/common/strided_copy_plan.h"

namespace duet {

// Bytes of copying below which a loop stays on the calling thread, and the least work a
// parallel chunk gets.
inline constexpr int64_t kParallelCopyBytes = 256 * 1024;

// Copies the elements of shape `dims` from `src` (element strides `src_strides`, 0 repeats an
// element) to `dst` (strides `dst_strides`), `elem_size` bytes each (1, 2, 4 or 8). Large copies
// split across `pool`.
void StridedCopy(absl::Span<const int64_t> dims, const void* src,
                 absl::Span<const int64_t> src_strides, void* dst,
                 absl::Span<const int64_t> dst_strides, int elem_size, ThreadPool& pool);

// The copy `plan` from the buffer at `src` to the one at `dst`.
void StridedCopy(const StridedCopyPlan& plan, const void* src, void* dst, int elem_size,
                 ThreadPool& pool);

}  // namespace duet
