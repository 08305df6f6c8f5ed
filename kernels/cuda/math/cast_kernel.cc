// CUDA kernel of Cast between all seven dtypes (kernels/cpu/math/cast_kernel.cc's semantics). It
// is picked by the source dtype (SrcT, the first type attr); the destination is the output's.
// Truncate=true between floats that lose mantissa bits zeroes those bits first, as the CPU kernel
// (Note [Cast with Truncate] in kernels/cpu/math/cast_kernel.cc).
#include "core/error.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/math/elementwise_launchers.h"
#include "kernels/cuda/math/elementwise_layout.h"
#include "kernels/kernel_registry.h"
#include "ops/math/math_attrs.h"

namespace duet::cuda {
namespace {

absl::Status CastKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(DeviceContext * device, CurrentContext(ctx.device()));
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  if (y.dtype() == kUInt8) {  // the device code has no uint8 element type
    return absl::UnimplementedError("Cast to uint8 runs on the CPU only; cast there");
  }
  return CudaStatus(
      LaunchCast(ElementTypeOf(x.dtype()), ElementTypeOf(y.dtype()), ctx.attr(CastAttrs::kTruncate),
                 x.raw_data(), y.raw_data(), x.num_elements(), device->stream()),
      "LaunchCast");
}

const KernelRegistrar registrar("Cast", DeviceType::kCuda,
                                {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool},
                                KernelDef{&CastKernel});

}  // namespace
}  // namespace duet::cuda
