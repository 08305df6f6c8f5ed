// StridedSlice, StridedSliceGrad and ReverseV2 on CUDA: the CPU kernels' strided copies (planned
// on the host from the host inputs begin, end, strides, shape and axis), run by the one CUDA
// strided copy, whose negative strides read backwards.
#include "kernels/common/strided_copy_plan.h"
#include "kernels/cuda/array/strided_copy.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

absl::Status StridedSliceKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(const StridedCopyPlan plan, StridedSliceCopy(ctx, x.shape()));
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  return cuda::StridedCopy(plan, x.raw_data(), out.raw_data(), DTypeSize(x.dtype()),
                           context->stream());
}

absl::Status StridedSliceGradKernel(KernelContext& ctx) {
  const Tensor& dy = ctx.input(4);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  // Zero bits are 0 / 0.0 / false in every dtype.
  DUET_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(out.raw_data(), 0, out.nbytes(), context->stream()));
  if (dy.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(const StridedCopyPlan plan, StridedSliceCopy(ctx, out.shape()));
  return cuda::StridedCopy(InverseCopy(plan), dy.raw_data(), out.raw_data(), DTypeSize(dy.dtype()),
                           context->stream());
}

absl::Status ReverseV2Kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(const StridedCopyPlan plan, ReverseCopy(ctx));
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  return cuda::StridedCopy(plan, x.raw_data(), out.raw_data(), DTypeSize(x.dtype()),
                           context->stream());
}

constexpr std::initializer_list<DType> kAll = {kFloat32, kFloat64, kFloat16, kBFloat16,
                                               kInt32,   kInt64,   kBool};

const KernelRegistrar kStridedSlice("StridedSlice", DeviceType::kCuda, kAll, {StridedSliceKernel});
const KernelRegistrar kStridedSliceGrad("StridedSliceGrad", DeviceType::kCuda, kAll,
                                        {StridedSliceGradKernel});
const KernelRegistrar kReverseV2("ReverseV2", DeviceType::kCuda, kAll, {ReverseV2Kernel});

}  // namespace
}  // namespace duet
