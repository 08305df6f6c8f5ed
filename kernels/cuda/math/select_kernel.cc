// CUDA kernel of SelectV2 (kernels/cpu/math/select_kernel.cc's semantics): condition ? t : e
// with three-way broadcasting. Selecting only moves elements, so it runs by element size.
#include "core/error.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/math/elementwise_launchers.h"
#include "kernels/cuda/math/elementwise_layout.h"
#include "kernels/kernel_registry.h"

namespace duet::cuda {
namespace {

absl::Status SelectKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(DeviceContext * device, CurrentContext(ctx.device()));
  const Tensor& cond = ctx.input(0);
  const Tensor& t = ctx.input(1);
  const Tensor& e = ctx.input(2);
  Tensor& z = ctx.output(0);
  if (z.num_elements() == 0) return absl::OkStatus();
  const Tensor* inputs[] = {&cond, &t, &e};
  DUET_ASSIGN_OR_RETURN(const ElementwiseLayout layout, MakeElementwiseLayout(inputs, z));
  return CudaStatus(LaunchSelect(DTypeSize(z.dtype()), cond.data<bool>(), t.raw_data(),
                                 e.raw_data(), z.raw_data(), layout, device->stream()),
                    "LaunchSelect");
}

const KernelRegistrar registrar("SelectV2", DeviceType::kCuda,
                                {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool},
                                KernelDef{&SelectKernel});

}  // namespace
}  // namespace duet::cuda
