// The one strided copy behind the CUDA Slice, Pad, Tile, BroadcastTo, Concat, Split and general
// Transpose kernels: the CPU's coalescing (kernels/cpu/array/strided_copy.h) planned on the host,
// one grid-stride kernel on the device.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace duet::cuda {

// Copies the elements of shape `dims` from `src` (element strides `src_strides`, 0 repeats an
// element) to `dst` (`dst_strides`), `elem_size` bytes each, on `stream`. Both pointers are
// device memory. InvalidArgument when more than kMaxCopyRank dims remain after coalescing.
absl::Status StridedCopy(absl::Span<const int64_t> dims, const void* src,
                         absl::Span<const int64_t> src_strides, void* dst,
                         absl::Span<const int64_t> dst_strides, int elem_size, cudaStream_t stream);

}  // namespace duet::cuda
