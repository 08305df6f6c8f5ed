// CUDA IsNan, IsInf, IsFinite and CheckNumerics, with the CPU kernels' semantics
// (kernels/cpu/math/float_check_kernels.cc). CheckNumerics waits for its scan: whether to fail is
// needed on the host.
#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/math/elementwise_launchers.h"
#include "kernels/cuda/math/elementwise_layout.h"
#include "kernels/kernel_registry.h"
#include "ops/math/math_attrs.h"

namespace duet::cuda {
namespace {

template <FloatClass kOp>
absl::Status FloatClassKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(DeviceContext * device, CurrentContext(ctx.device()));
  const Tensor& x = ctx.input(0);
  return CudaStatus(LaunchFloatClass(kOp, ElementTypeOf(x.dtype()), x.raw_data(),
                                     static_cast<bool*>(ctx.output(0).raw_data()), x.num_elements(),
                                     device->stream()),
                    "LaunchFloatClass");
}

absl::Status CheckNumericsKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.num_elements() > 0) {
    DUET_ASSIGN_OR_RETURN(DeviceContext * device, CurrentContext(ctx.device()));
    DUET_ASSIGN_OR_RETURN(Tensor flags, Tensor::TryEmpty(kInt32, Shape{}, ctx.device()));
    auto* flags_ptr = static_cast<unsigned*>(flags.raw_data());
    DUET_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(flags_ptr, 0, sizeof(unsigned), device->stream()));
    DUET_CUDA_RETURN_IF_ERROR(LaunchNonFiniteFlags(ElementTypeOf(x.dtype()), x.raw_data(),
                                                   x.num_elements(), flags_ptr, device->stream()));
    unsigned bits = 0;
    DUET_RETURN_IF_ERROR(CopyBytes(&bits, Device::cpu(), flags_ptr, ctx.device(), sizeof(bits)));
    if (bits != 0) {
      const char* what = bits == 3 ? "Inf and NaN" : bits == 1 ? "NaN" : "Inf";
      return absl::InvalidArgumentError(
          absl::StrCat(ctx.attr(CheckNumericsAttrs::kMessage), " : Tensor had ", what, " values"));
    }
  }
  ctx.output(0) = x.ViewAs(x.dtype(), x.shape(), ctx.device());
  return absl::OkStatus();
}

constexpr std::initializer_list<DType> kFloats = {kFloat32, kFloat64, kFloat16, kBFloat16};

const KernelRegistrar kIsNan("IsNan", DeviceType::kCuda, kFloats,
                             {&FloatClassKernel<FloatClass::kIsNan>});
const KernelRegistrar kIsInf("IsInf", DeviceType::kCuda, kFloats,
                             {&FloatClassKernel<FloatClass::kIsInf>});
const KernelRegistrar kIsFinite("IsFinite", DeviceType::kCuda, kFloats,
                                {&FloatClassKernel<FloatClass::kIsFinite>});
const KernelRegistrar kCheckNumerics("CheckNumerics", DeviceType::kCuda, kFloats,
                                     {&CheckNumericsKernel, /*allocates_outputs=*/true});

}  // namespace
}  // namespace duet::cuda
