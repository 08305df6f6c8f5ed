// OneHot on CUDA: output viewed as (outer, depth, inner) over indices viewed as (outer, inner);
// one thread per output element. indices live on the device, depth on the host; on/off values on
// either (see scalar_operand.h). Out-of-range indices give all off values, as on the CPU.
#include "absl/strings/str_cat.h"
#include "core/int_values.h"
#include "kernels/cuda/array/array_kernels.h"
#include "kernels/cuda/array/scalar_operand.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"
#include "ops/array/array_attrs.h"

namespace duet {
namespace {

absl::Status OneHotKernel(KernelContext& ctx) {
  const Tensor& indices = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  if (indices.device() != ctx.device()) {
    return absl::InvalidArgumentError(absl::StrCat("OneHot on ", ctx.device().str(),
                                                   " needs its indices there, not on ",
                                                   indices.device().str()));
  }
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  const int64_t depth = IntScalar(ctx.input(1));
  const int64_t axis = ctx.attr(OneHotAttrs::kAxis);
  const int at = axis == -1 ? indices.rank() : static_cast<int>(axis);
  int64_t inner = 1;
  for (int d = at; d < indices.rank(); ++d) inner *= indices.shape().dim(d);
  const int64_t outer = out.num_elements() / (depth * inner);
  DUET_CUDA_RETURN_IF_ERROR(cuda::LaunchOneHot(
      indices.raw_data(), indices.dtype() == kInt64, out.raw_data(), outer, depth, inner,
      cuda::ScalarBitsOf(ctx.input(2)), cuda::ScalarBitsOf(ctx.input(3)), DTypeSize(out.dtype()),
      context->stream()));
  return absl::OkStatus();
}

const KernelRegistrar kOneHot("OneHot", DeviceType::kCuda,
                              {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool},
                              {OneHotKernel});

}  // namespace
}  // namespace duet
