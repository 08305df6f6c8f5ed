// The one strided copy behind the CUDA Slice, Pad, Tile, BroadcastTo, Concat, Split and general
// Transpose kernels: planned and coalesced on the host as on the CPU
// (kernels/common/strided_copy_plan.h), one grid-stride kernel on the device.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "kernels/common/strided_copy_plan.h"

namespace duet::cuda {

// Copies the elements of shape `dims` from `src` (element strides `src_strides`, 0 repeats an
// element) to `dst` (`dst_strides`), `elem_size` bytes each, on `stream`. Both pointers are
// device memory. InvalidArgument when more than kMaxCopyRank dims remain after coalescing.
absl::Status StridedCopy(absl::Span<const int64_t> dims, const void* src,
                         absl::Span<const int64_t> src_strides, void* dst,
                         absl::Span<const int64_t> dst_strides, int elem_size, cudaStream_t stream);

// The copy `plan` from the device buffer at `src` to the one at `dst`, on `stream`.
absl::Status StridedCopy(const StridedCopyPlan& plan, const void* src, void* dst, int elem_size,
                         cudaStream_t stream);

}  // namespace duet::cuda
