// SpaceToBatchND and BatchToSpaceND on CUDA: the CPU's plan (kernels/common/space_batch_plan.h),
// one strided-copy kernel per block offset; SpaceToBatchND zero-fills its output first.
// block_shape and paddings/crops are host inputs. Moves bits: equal to the CPU.
#include "core/int_values.h"
#include "kernels/common/space_batch_plan.h"
#include "kernels/cuda/array/strided_copy.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

absl::Status SpaceToBatchKernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  DUET_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(out.raw_data(), 0, out.nbytes(), context->stream()));
  if (input.num_elements() == 0) return absl::OkStatus();
  const int elem = DTypeSize(input.dtype());
  for (const StridedCopyPlan& plan :
       SpaceToBatchCopies(input.shape(), IntValues(ctx.input(1)), IntValues(ctx.input(2)))) {
    DUET_RETURN_IF_ERROR(
        cuda::StridedCopy(plan, input.raw_data(), out.raw_data(), elem, context->stream()));
  }
  return absl::OkStatus();
}

absl::Status BatchToSpaceKernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  const int elem = DTypeSize(input.dtype());
  for (const StridedCopyPlan& plan :
       SpaceToBatchCopies(out.shape(), IntValues(ctx.input(1)), IntValues(ctx.input(2)))) {
    DUET_RETURN_IF_ERROR(cuda::StridedCopy(InverseCopy(plan), input.raw_data(), out.raw_data(),
                                           elem, context->stream()));
  }
  return absl::OkStatus();
}

const KernelRegistrar kSpaceToBatchND("SpaceToBatchND", DeviceType::kCuda,
                                      {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64,
                                       kBool},
                                      {SpaceToBatchKernel});
const KernelRegistrar kBatchToSpaceND("BatchToSpaceND", DeviceType::kCuda,
                                      {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64,
                                       kBool},
                                      {BatchToSpaceKernel});

}  // namespace
}  // namespace duet
