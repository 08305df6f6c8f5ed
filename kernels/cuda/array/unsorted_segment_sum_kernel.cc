// UnsortedSegmentSum on CUDA by atomic adds (see LaunchUnsortedSegmentSum): float results depend
// on the order of the adds, so they match the CPU within rounding, not bitwise. segment_ids live
// on the device, num_segments on the host. Ids past the last segment are dropped rather than
// reported (the CPU reports them): checking would need a host synchronization, and TensorFlow's
// GPU kernel drops them too. No bool kernel, as on the CPU.
#include "absl/strings/str_cat.h"
#include "kernels/cuda/array/array_kernels.h"
#include "kernels/cuda/array/sum_type.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

absl::Status UnsortedSegmentSumKernel(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& ids = ctx.input(1);
  Tensor& out = ctx.output(0);
  const int64_t n = out.num_elements();
  if (n == 0) return absl::OkStatus();
  if (ids.device() != ctx.device()) {
    return absl::InvalidArgumentError(absl::StrCat("UnsortedSegmentSum on ", ctx.device().str(),
                                                   " needs its segment_ids there, not on ",
                                                   ids.device().str()));
  }
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  const int64_t num_segments = out.shape().dim(0);
  const int64_t inner = n / num_segments;
  // 16-bit floats sum in float32 scratch; freeing it before the kernels ran is safe (Note [One
  // stream per device]).
  Tensor scratch;
  if (out.dtype() == kFloat16 || out.dtype() == kBFloat16) {
    DUET_ASSIGN_OR_RETURN(scratch, Tensor::TryEmpty(kFloat32, Shape({n}), ctx.device()));
  }
  DUET_CUDA_RETURN_IF_ERROR(cuda::LaunchUnsortedSegmentSum(
      cuda::SumTypeOf(out.dtype()), data.raw_data(), ids.raw_data(), ids.dtype() == kInt64,
      out.raw_data(), scratch.defined() ? scratch.mutable_data<float>() : nullptr,
      ids.num_elements(), inner, num_segments, context->stream()));
  return absl::OkStatus();
}

const KernelRegistrar kUnsortedSegmentSum("UnsortedSegmentSum", DeviceType::kCuda,
                                          {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64},
                                          {UnsortedSegmentSumKernel});

}  // namespace
}  // namespace duet
