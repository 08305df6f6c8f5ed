// Slice and Pad on CUDA: a strided copy out of, or into, a bigger tensor (begin, size and
// paddings are host inputs).
#include "core/int_values.h"
#include "kernels/common/strided_copy_plan.h"
#include "kernels/cuda/array/strided_copy.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

absl::Status SliceKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  return cuda::StridedCopy(SliceCopy(x.shape(), out.shape(), IntValues(ctx.input(1))), x.raw_data(),
                           out.raw_data(), DTypeSize(x.dtype()), context->stream());
}

absl::Status PadKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  // Zero bits are 0 / 0.0 / false in every dtype.
  DUET_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(out.raw_data(), 0, out.nbytes(), context->stream()));
  if (x.num_elements() == 0) return absl::OkStatus();
  return cuda::StridedCopy(PadCopy(x.shape(), out.shape(), IntValues(ctx.input(1))), x.raw_data(),
                           out.raw_data(), DTypeSize(x.dtype()), context->stream());
}

constexpr std::initializer_list<DType> kAll = {kFloat32, kFloat64, kFloat16, kBFloat16,
                                               kInt32,   kInt64,   kBool};

const KernelRegistrar kSlice("Slice", DeviceType::kCuda, kAll, {SliceKernel});
const KernelRegistrar kPad("Pad", DeviceType::kCuda, kAll, {PadKernel});

}  // namespace
}  // namespace duet
