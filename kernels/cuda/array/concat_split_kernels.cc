// ConcatV2, Split and SplitV on CUDA. As on the CPU, each operand is a block of columns of the
// whole viewed as (outer, row) (ColumnBlocks, kernels/common/strided_copy_plan.h); one strided copy
// per operand moves it. axis and size_splits are
// host inputs.
#include "kernels/common/strided_copy_plan.h"
#include "kernels/cuda/array/strided_copy.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

absl::Status ConcatKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  const ColumnBlocks blocks = ConcatBlocks(ctx);
  for (int k = 0; k < blocks.num_parts(); ++k) {
    DUET_RETURN_IF_ERROR(cuda::StridedCopy(blocks.ConcatCopy(k), ctx.input(k).raw_data(),
                                           out.raw_data(), DTypeSize(out.dtype()),
                                           context->stream()));
  }
  return absl::OkStatus();
}

template <SplitKind kKind>
absl::Status SplitKernel(KernelContext& ctx) {
  const Tensor& x = SplitValue(ctx, kKind);
  if (x.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  const ColumnBlocks blocks = SplitBlocks(ctx, kKind);
  for (int k = 0; k < blocks.num_parts(); ++k) {
    DUET_RETURN_IF_ERROR(cuda::StridedCopy(blocks.SplitCopy(k), x.raw_data(),
                                           ctx.output(k).raw_data(), DTypeSize(x.dtype()),
                                           context->stream()));
  }
  return absl::OkStatus();
}

constexpr std::initializer_list<DType> kAll = {kFloat32, kFloat64, kFloat16, kBFloat16,
                                               kInt32,   kInt64,   kBool};

const KernelRegistrar kConcatV2("ConcatV2", DeviceType::kCuda, kAll, {ConcatKernel});
const KernelRegistrar kSplit("Split", DeviceType::kCuda, kAll, {SplitKernel<SplitKind::kSplit>});
const KernelRegistrar kSplitV("SplitV", DeviceType::kCuda, kAll, {SplitKernel<SplitKind::kSplitV>});

}  // namespace
}  // namespace duet
