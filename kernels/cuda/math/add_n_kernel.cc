// AddN on CUDA: a chain of the elementwise add launcher, x0 + x1, then + xk for each further
// input. The launcher's operands are __restrict__, so the partial sums alternate between the
// output and a scratch buffer (for three or more inputs), ending in the output. The CPU kernel
// (kernels/cpu/math/add_n_kernel.cc) sums float16/bfloat16 in float32 and rounds once; here each
// add rounds, as AddV2 does, so sums of three or more half-precision tensors may differ from the
// CPU's in the last bit.
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/math/elementwise_launchers.h"
#include "kernels/cuda/math/elementwise_layout.h"
#include "kernels/kernel_registry.h"

namespace duet::cuda {
namespace {

absl::Status AddNKernel(KernelContext& ctx) {
  Tensor& z = ctx.output(0);
  if (z.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(DeviceContext * device, CurrentContext(ctx.device()));
  if (ctx.num_inputs() == 1) {
    return CudaStatus(cudaMemcpyAsync(z.raw_data(), ctx.input(0).raw_data(), z.nbytes(),
                                      cudaMemcpyDeviceToDevice, device->stream()),
                      "AddN");
  }
  ElementwiseLayout layout;
  layout.n = z.num_elements();
  const ElementType type = ElementTypeOf(z.dtype());
  const int adds = ctx.num_inputs() - 1;
  Tensor scratch;
  if (adds > 1) {
    DUET_ASSIGN_OR_RETURN(scratch, Tensor::TryEmpty(z.dtype(), z.shape(), ctx.device()));
  }
  const void* sum = ctx.input(0).raw_data();
  for (int k = 1; k <= adds; ++k) {
    // Add k writes where the last add (k == adds) writes the output.
    void* dst = (adds - k) % 2 == 0 ? z.raw_data() : scratch.raw_data();
    DUET_RETURN_IF_ERROR(CudaStatus(LaunchBinary(BinaryOp::kAdd, type, sum, ctx.input(k).raw_data(),
                                                 dst, layout, device->stream()),
                                    "AddN"));
    sum = dst;
  }
  return absl::OkStatus();
}

const KernelRegistrar kAddN("AddN", DeviceType::kCuda,
                            {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64},
                            {AddNKernel});

}  // namespace
}  // namespace duet::cuda
