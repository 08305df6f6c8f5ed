// ResizeBilinear, ResizeNearestNeighbor and their gradients on CUDA: .cu kernels
// (resize_launchers.h) running the CPU's coordinate code (kernels/common/resize_geometry.h). The
// gradients gather rather than scatter with atomics, so they are deterministic; their float sums
// run in another order than the CPU's. size is a host input.
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/nn/nn_kernel_util.h"
#include "kernels/cuda/nn/resize_launchers.h"
#include "kernels/kernel_registry.h"
#include "ops/nn/nn_attrs.h"

namespace duet {
namespace {

// The resize from NHWC `in` to `out` under the call's corner attrs.
cuda::ResizeDims DimsOf(const KernelContext& ctx, const Shape& in, const Shape& out) {
  cuda::ResizeDims d;
  d.batch = in.dim(0);
  d.channels = in.dim(3);
  d.in_h = in.dim(1);
  d.in_w = in.dim(2);
  d.out_h = out.dim(1);
  d.out_w = out.dim(2);
  d.align_corners = ctx.attr(ResizeAttrs::kAlignCorners);
  d.half_pixel_centers = ctx.attr(ResizeAttrs::kHalfPixelCenters);
  return d;
}

struct Launch {
  cuda::NnType type;
  cudaStream_t stream;
};

absl::StatusOr<Launch> Prepare(const KernelContext& ctx, DType dtype) {
  DUET_ASSIGN_OR_RETURN(const cuda::NnType type, cuda::ToNnType(dtype));
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * device, cuda::CurrentContext(ctx.device()));
  return Launch{type, device->stream()};
}

absl::Status ResizeBilinearKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const Tensor& x = ctx.input(0);
  DUET_ASSIGN_OR_RETURN(const Launch l, Prepare(ctx, x.dtype()));
  return cuda::CudaStatus(
      cuda::LaunchResizeBilinear(l.type, DimsOf(ctx, x.shape(), out.shape()), x.raw_data(),
                                 out.mutable_data<float>(), l.stream),
      "ResizeBilinear");
}

// Inputs: grads (float32, resized), original_image (only its shape).
absl::Status ResizeBilinearGradKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const Tensor& grads = ctx.input(0);
  DUET_ASSIGN_OR_RETURN(const Launch l, Prepare(ctx, out.dtype()));
  return cuda::CudaStatus(
      cuda::LaunchResizeBilinearGrad(l.type, DimsOf(ctx, out.shape(), grads.shape()),
                                     grads.data<float>(), out.raw_data(), l.stream),
      "ResizeBilinearGrad");
}

absl::Status ResizeNearestNeighborKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const Tensor& x = ctx.input(0);
  DUET_ASSIGN_OR_RETURN(const Launch l, Prepare(ctx, x.dtype()));
  return cuda::CudaStatus(
      cuda::LaunchResizeNearestNeighbor(l.type, DimsOf(ctx, x.shape(), out.shape()), x.raw_data(),
                                        out.raw_data(), l.stream),
      "ResizeNearestNeighbor");
}

absl::Status ResizeNearestNeighborGradKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const Tensor& grads = ctx.input(0);
  DUET_ASSIGN_OR_RETURN(const Launch l, Prepare(ctx, out.dtype()));
  return cuda::CudaStatus(
      cuda::LaunchResizeNearestNeighborGrad(l.type, DimsOf(ctx, out.shape(), grads.shape()),
                                            grads.raw_data(), out.raw_data(), l.stream),
      "ResizeNearestNeighborGrad");
}

const bool kRegistered = [] {
  for (DType t : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64}) {
    RegisterKernel("ResizeBilinear", DeviceType::kCuda, {t}, KernelDef{&ResizeBilinearKernel});
    RegisterKernel("ResizeNearestNeighbor", DeviceType::kCuda, {t},
                   KernelDef{&ResizeNearestNeighborKernel});
  }
  for (DType t : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    RegisterKernel("ResizeBilinearGrad", DeviceType::kCuda, {t},
                   KernelDef{&ResizeBilinearGradKernel});
  }
  for (DType t : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32}) {
    RegisterKernel("ResizeNearestNeighborGrad", DeviceType::kCuda, {t},
                   KernelDef{&ResizeNearestNeighborGradKernel});
  }
  return true;
}();

}  // namespace
}  // namespace duet
