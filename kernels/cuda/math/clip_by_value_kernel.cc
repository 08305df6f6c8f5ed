// ClipByValue on CUDA: Minimum(t, hi) then Maximum(.., lo) (TensorFlow's order) with the binary
// launchers, whose functors mirror the CPU's NaN propagation, so the result matches the CPU
// kernel's (kernels/cpu/math/clip_by_value_kernel.cc) exactly; 16-bit types are exact too (the
// result is one of the inputs). Costs one temporary of t's size.
#include "core/error.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/math/elementwise_launchers.h"
#include "kernels/cuda/math/elementwise_layout.h"
#include "kernels/kernel_registry.h"

namespace duet::cuda {
namespace {

// z = op(x, y) with y a scalar or of x's shape.
absl::Status Launch(BinaryOp op, const Tensor& x, const Tensor& y, Tensor& z, cudaStream_t stream) {
  const Tensor* inputs[] = {&x, &y};
  DUET_ASSIGN_OR_RETURN(const ElementwiseLayout layout, MakeElementwiseLayout(inputs, z));
  return CudaStatus(LaunchBinary(op, ElementTypeOf(x.dtype()), x.raw_data(), y.raw_data(),
                                 z.raw_data(), layout, stream),
                    "LaunchBinary");
}

absl::Status ClipByValueKernel(KernelContext& ctx) {
  Tensor& z = ctx.output(0);
  if (z.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(DeviceContext * device, CurrentContext(ctx.device()));
  DUET_ASSIGN_OR_RETURN(Tensor high, Tensor::TryEmpty(z.dtype(), z.shape(), ctx.device()));
  DUET_RETURN_IF_ERROR(
      Launch(BinaryOp::kMinimum, ctx.input(0), ctx.input(2), high, device->stream()));
  return Launch(BinaryOp::kMaximum, high, ctx.input(1), z, device->stream());
}

const KernelRegistrar kClipByValue("ClipByValue", DeviceType::kCuda,
                                   {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64},
                                   {&ClipByValueKernel});

}  // namespace
}  // namespace duet::cuda
