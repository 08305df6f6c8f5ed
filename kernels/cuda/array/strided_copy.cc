#include "kernels/cuda/array/strided_copy.h"

#include "absl/strings/str_cat.h"
#include "kernels/cuda/array/array_kernels.h"
#include "kernels/cuda/cuda_context.h"

namespace duet::cuda {

absl::Status StridedCopy(absl::Span<const int64_t> dims, const void* src,
                         absl::Span<const int64_t> src_strides, void* dst,
                         absl::Span<const int64_t> dst_strides, int elem_size,
                         cudaStream_t stream) {
  const CoalescedDims c = Coalesce(dims, src_strides, dst_strides);
  if (c.empty) return absl::OkStatus();
  const StridedDims& s = c.dims;
  if (s.rank() == 1 && s.src[0] == 1 && s.dst[0] == 1) {  // one contiguous block
    return CudaStatus(
        cudaMemcpyAsync(dst, src, s.dims[0] * elem_size, cudaMemcpyDeviceToDevice, stream),
        "cudaMemcpyAsync");
  }
  if (s.rank() > kMaxCopyRank) {
    return absl::InvalidArgumentError(absl::StrCat("a strided copy of ", s.rank(),
                                                   " non-mergeable dims; the CUDA kernel takes ",
                                                   kMaxCopyRank));
  }
  StridedCopyDims d;
  d.rank = s.rank();
  for (int k = 0; k < s.rank(); ++k) {
    d.dims[k] = s.dims[k];
    d.src_strides[k] = s.src[k];
    d.dst_strides[k] = s.dst[k];
  }
  return CudaStatus(LaunchStridedCopy(d, src, dst, elem_size, stream), "LaunchStridedCopy");
}

absl::Status StridedCopy(const StridedCopyPlan& plan, const void* src, void* dst, int elem_size,
                         cudaStream_t stream) {
  return StridedCopy(plan.layout.dims, static_cast<const char*>(src) + plan.src_offset * elem_size,
                     plan.layout.src, static_cast<char*>(dst) + plan.dst_offset * elem_size,
                     plan.layout.dst, elem_size, stream);
}

}  // namespace duet::cuda
