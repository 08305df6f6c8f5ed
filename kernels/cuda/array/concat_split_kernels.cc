// ConcatV2, Split and SplitV, Pack and Unpack on CUDA. As on the CPU, each operand is a block of
// columns of the whole viewed as (outer, row) (ColumnBlocks, kernels/common/strided_copy_plan.h);
// one strided copy per operand moves it. axis and size_splits are host inputs.
#include "kernels/common/strided_copy_plan.h"
#include "kernels/cuda/array/strided_copy.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"
#include "ops/array/array_attrs.h"

namespace duet {
namespace {

// Joins the kernel's inputs [0, blocks.num_parts()) into output 0.
absl::Status JoinInputs(KernelContext& ctx, const ColumnBlocks& blocks) {
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  Tensor& out = ctx.output(0);
  for (int k = 0; k < blocks.num_parts(); ++k) {
    DUET_RETURN_IF_ERROR(cuda::StridedCopy(blocks.ConcatCopy(k), ctx.input(k).raw_data(),
                                           out.raw_data(), DTypeSize(out.dtype()),
                                           context->stream()));
  }
  return absl::OkStatus();
}

// Copies the column blocks of `x` into the kernel's outputs.
absl::Status CutIntoOutputs(KernelContext& ctx, const Tensor& x, const ColumnBlocks& blocks) {
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  for (int k = 0; k < blocks.num_parts(); ++k) {
    DUET_RETURN_IF_ERROR(cuda::StridedCopy(blocks.SplitCopy(k), x.raw_data(),
                                           ctx.output(k).raw_data(), DTypeSize(x.dtype()),
                                           context->stream()));
  }
  return absl::OkStatus();
}

absl::Status ConcatKernel(KernelContext& ctx) {
  if (ctx.output(0).num_elements() == 0) return absl::OkStatus();
  return JoinInputs(ctx, ConcatBlocks(ctx));
}

absl::Status PackKernel(KernelContext& ctx) {
  if (ctx.output(0).num_elements() == 0) return absl::OkStatus();
  return JoinInputs(ctx, PackBlocks(ctx, ctx.attr(PackAttrs::kAxis)));
}

template <SplitKind kKind>
absl::Status SplitKernel(KernelContext& ctx) {
  const Tensor& x = SplitValue(ctx, kKind);
  if (x.num_elements() == 0) return absl::OkStatus();
  return CutIntoOutputs(ctx, x, SplitBlocks(ctx, kKind));
}

absl::Status UnpackKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.num_elements() == 0) return absl::OkStatus();
  return CutIntoOutputs(ctx, x, UnpackBlocks(ctx, ctx.attr(UnpackAttrs::kAxis)));
}

constexpr std::initializer_list<DType> kAll = {kFloat32, kFloat64, kFloat16, kBFloat16,
                                               kInt32,   kInt64,   kBool};

const KernelRegistrar kConcatV2("ConcatV2", DeviceType::kCuda, kAll, {ConcatKernel});
const KernelRegistrar kPack("Pack", DeviceType::kCuda, kAll, {PackKernel});
const KernelRegistrar kUnpack("Unpack", DeviceType::kCuda, kAll, {UnpackKernel});
const KernelRegistrar kSplit("Split", DeviceType::kCuda, kAll, {SplitKernel<SplitKind::kSplit>});
const KernelRegistrar kSplitV("SplitV", DeviceType::kCuda, kAll, {SplitKernel<SplitKind::kSplitV>});

}  // namespace
}  // namespace duet
