// Fill, ZerosLike and OnesLike on CUDA. Fill's dims is a host input; its value may be a device
// scalar (read by the kernel) or a host one.
#include <cstring>

#include "kernels/cuda/array/array_kernels.h"
#include "kernels/cuda/array/scalar_operand.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

absl::Status FillKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  DUET_CUDA_RETURN_IF_ERROR(
      cuda::LaunchFillScalar(out.raw_data(), out.num_elements(), DTypeSize(out.dtype()),
                             cuda::ScalarBitsOf(ctx.input(1)), context->stream()));
  return absl::OkStatus();
}

absl::Status ZerosLikeKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  // Zero bits are 0 / 0.0 / false in every dtype.
  DUET_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(out.raw_data(), 0, out.nbytes(), context->stream()));
  return absl::OkStatus();
}

// The bits of 1 in `dtype`.
uint64_t OneBits(DType dtype) {
  uint64_t bits = 0;
  VisitDType(dtype, [&](auto zero) {
    using T = decltype(zero);
    T one;
    if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
      one = T(1.0f);
    } else {
      one = static_cast<T>(1);
    }
    std::memcpy(&bits, &one, sizeof(T));
  });
  return bits;
}

absl::Status OnesLikeKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  cuda::ScalarBits one;
  one.bits = OneBits(out.dtype());
  DUET_CUDA_RETURN_IF_ERROR(cuda::LaunchFillScalar(out.raw_data(), out.num_elements(),
                                                   DTypeSize(out.dtype()), one, context->stream()));
  return absl::OkStatus();
}

constexpr std::initializer_list<DType> kAll = {kFloat32, kFloat64, kFloat16, kBFloat16,
                                               kInt32,   kInt64,   kBool};

const KernelRegistrar kFill("Fill", DeviceType::kCuda, kAll, {FillKernel});
const KernelRegistrar kZerosLike("ZerosLike", DeviceType::kCuda, kAll, {ZerosLikeKernel});
const KernelRegistrar kOnesLike("OnesLike", DeviceType::kCuda, kAll, {OnesLikeKernel});

}  // namespace
}  // namespace duet
