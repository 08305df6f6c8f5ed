// Slice and the pads on CUDA: a strided copy out of, or into, a bigger tensor (begin, size and
// paddings are host inputs). MirrorPad adds the mirrored slabs as more copies and MirrorPadGrad
// gathers, as on the CPU (Note [Mirror padding] in kernels/common/mirror_pad_plan.h).
#include "absl/strings/str_cat.h"
#include "core/int_values.h"
#include "kernels/common/mirror_pad_plan.h"
#include "kernels/common/strided_copy_plan.h"
#include "kernels/cuda/array/array_kernels.h"
#include "kernels/cuda/array/scalar_operand.h"
#include "kernels/cuda/array/strided_copy.h"
#include "kernels/cuda/array/sum_type.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"
#include "ops/array/array_attrs.h"

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

// The constant may live on the device (read by the fill kernel) or the host.
absl::Status PadV2Kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  DUET_CUDA_RETURN_IF_ERROR(
      cuda::LaunchFillScalar(out.raw_data(), out.num_elements(), DTypeSize(out.dtype()),
                             cuda::ScalarBitsOf(ctx.input(2)), context->stream()));
  if (x.num_elements() == 0) return absl::OkStatus();
  return cuda::StridedCopy(PadCopy(x.shape(), out.shape(), IntValues(ctx.input(1))), x.raw_data(),
                           out.raw_data(), DTypeSize(x.dtype()), context->stream());
}

absl::Status MirrorPadKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  const std::vector<int64_t> paddings = IntValues(ctx.input(1));
  const int elem_size = DTypeSize(x.dtype());
  DUET_RETURN_IF_ERROR(cuda::StridedCopy(PadCopy(x.shape(), out.shape(), paddings), x.raw_data(),
                                         out.raw_data(), elem_size, context->stream()));
  const bool symmetric = ctx.attr(MirrorPadAttrs::kMode) == "SYMMETRIC";
  for (const StridedCopyPlan& copy : MirrorPadCopies(out.shape(), paddings, symmetric)) {
    DUET_RETURN_IF_ERROR(
        cuda::StridedCopy(copy, out.raw_data(), out.raw_data(), elem_size, context->stream()));
  }
  return absl::OkStatus();
}

absl::Status MirrorPadGradKernel(KernelContext& ctx) {
  const Tensor& dy = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  if (out.rank() > cuda::kMaxCopyRank) {
    return absl::InvalidArgumentError(absl::StrCat("MirrorPadGrad on CUDA takes at most ",
                                                   cuda::kMaxCopyRank, " dims, got shape ",
                                                   dy.shape().str()));
  }
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  const std::vector<int64_t> paddings = IntValues(ctx.input(1));
  cuda::MirrorPadGradDims dims;
  dims.rank = out.rank();
  dims.symmetric = ctx.attr(MirrorPadAttrs::kMode) == "SYMMETRIC";
  for (int d = 0; d < dims.rank; ++d) {
    dims.out_dims[d] = out.shape().dim(d);
    dims.before[d] = paddings[2 * d];
    dims.after[d] = paddings[2 * d + 1];
  }
  DUET_CUDA_RETURN_IF_ERROR(cuda::LaunchMirrorPadGrad(cuda::SumTypeOf(out.dtype()), dims,
                                                      dy.raw_data(), out.raw_data(),
                                                      out.num_elements(), context->stream()));
  return absl::OkStatus();
}

constexpr std::initializer_list<DType> kAll = {kFloat32, kFloat64, kFloat16, kBFloat16,
                                               kInt32,   kInt64,   kBool};

const KernelRegistrar kSlice("Slice", DeviceType::kCuda, kAll, {SliceKernel});
const KernelRegistrar kPad("Pad", DeviceType::kCuda, kAll, {PadKernel});
const KernelRegistrar kPadV2("PadV2", DeviceType::kCuda, kAll, {PadV2Kernel});
const KernelRegistrar kMirrorPad("MirrorPad", DeviceType::kCuda, kAll, {MirrorPadKernel});
const KernelRegistrar kMirrorPadGrad("MirrorPadGrad", DeviceType::kCuda,
                                     {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64},
                                     {MirrorPadGradKernel});

}  // namespace
}  // namespace duet
