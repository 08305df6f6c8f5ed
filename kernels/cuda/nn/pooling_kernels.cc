// MaxPool, AvgPool, MaxPoolGrad, AvgPoolGrad and MaxPoolGradGrad, and their NDHWC twins
// (MaxPool3D, ...), on CUDA: .cu kernels (pooling_launchers.h) over the CPU's pool geometry.
//
// Not cuDNN's pooling: it pads symmetrically only (TensorFlow's SAME may pad one more row after),
// its max-pooling backward does not promise the first-maximum tie rule the CPU and the gradient
// tests rely on, and it has no MaxPoolGradGrad; direct kernels give all of them the CPU's
// semantics.
#include <string>
#include <vector>

#include "core/error.h"
#include "kernels/common/channels_last_kernel.h"
#include "kernels/common/pool_geometry.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/nn/nn_kernel_util.h"
#include "kernels/cuda/nn/pooling_launchers.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

cuda::PoolDims ToDims(const PoolGeometry& geometry) {
  const PoolGeometry g = geometry.As3D();
  cuda::PoolDims d;
  d.batch = g.batch;
  d.channels = g.channels;
  for (int k = 0; k < 3; ++k) {
    d.in[k] = g.in[k];
    d.out[k] = g.out[k];
    d.window[k] = g.window[k];
    d.stride[k] = g.stride[k];
    d.pad[k] = g.pad[k].before;
  }
  return d;
}

// The pooling of input shape `in` and output shape `out` under the call's PoolAttrs, with
// `explicit_pads` (MaxPoolExplicitPads) or SAME/VALID padding.
cuda::PoolDims DimsOf(const KernelContext& ctx, const Shape& in, const Shape& out,
                      const std::vector<int64_t>* explicit_pads = nullptr) {
  return ToDims(MakePoolGeometry(ctx, in, out, explicit_pads));
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

absl::Status MaxPoolKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const Tensor& x = ctx.input(0);
  DUET_ASSIGN_OR_RETURN(const Launch l, Prepare(ctx, x.dtype()));
  const cuda::PoolDims d = DimsOf(ctx, x.shape(), out.shape(), MaxPoolExplicitPads(ctx));
  return cuda::CudaStatus(cuda::LaunchMaxPool(l.type, d, x.raw_data(), out.raw_data(), l.stream),
                          "MaxPool");
}

absl::Status AvgPoolKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const Tensor& x = ctx.input(0);
  DUET_ASSIGN_OR_RETURN(const Launch l, Prepare(ctx, x.dtype()));
  const cuda::PoolDims d = DimsOf(ctx, x.shape(), out.shape());
  return cuda::CudaStatus(cuda::LaunchAvgPool(l.type, d, x.raw_data(), out.raw_data(), l.stream),
                          "AvgPool");
}

// Inputs: orig_input, orig_output, grad. An empty grad (no output cells) gives zeros.
absl::Status MaxPoolGradKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const Tensor& grad = ctx.input(2);
  DUET_ASSIGN_OR_RETURN(const Launch l, Prepare(ctx, out.dtype()));
  if (grad.num_elements() == 0) {
    return cuda::CudaStatus(cudaMemsetAsync(out.raw_data(), 0, out.nbytes(), l.stream),
                            "cudaMemsetAsync");
  }
  const cuda::PoolDims d = DimsOf(ctx, out.shape(), grad.shape(), MaxPoolExplicitPads(ctx));
  return cuda::CudaStatus(cuda::LaunchMaxPoolGrad(l.type, d, ctx.input(0).raw_data(),
                                                  grad.raw_data(), out.raw_data(), l.stream),
                          "MaxPoolGrad");
}

// Inputs: orig_input_shape (host), grad.
absl::Status AvgPoolGradKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const Tensor& grad = ctx.input(1);
  DUET_ASSIGN_OR_RETURN(const Launch l, Prepare(ctx, out.dtype()));
  if (grad.num_elements() == 0) {
    return cuda::CudaStatus(cudaMemsetAsync(out.raw_data(), 0, out.nbytes(), l.stream),
                            "cudaMemsetAsync");
  }
  const cuda::PoolDims d = DimsOf(ctx, out.shape(), grad.shape());
  return cuda::CudaStatus(
      cuda::LaunchAvgPoolGrad(l.type, d, grad.raw_data(), out.raw_data(), l.stream), "AvgPoolGrad");
}

// Inputs: orig_input, orig_output, grad (orig_input's shape); output: orig_output's shape.
absl::Status MaxPoolGradGradKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(const Launch l, Prepare(ctx, out.dtype()));
  const cuda::PoolDims d = DimsOf(ctx, ctx.input(0).shape(), out.shape());
  return cuda::CudaStatus(
      cuda::LaunchMaxPoolGradGrad(l.type, d, ctx.input(0).raw_data(), ctx.input(2).raw_data(),
                                  out.raw_data(), l.stream),
      "MaxPoolGradGrad");
}

const bool kRegistered = [] {
  for (DType t : {kFloat32, kFloat64, kBFloat16}) {
    RegisterKernel("MaxPool", DeviceType::kCuda, {t}, KernelDef{&ChannelsLast<MaxPoolKernel>});
    RegisterKernel("AvgPool", DeviceType::kCuda, {t}, KernelDef{&ChannelsLast<AvgPoolKernel>});
    RegisterKernel("MaxPoolGrad", DeviceType::kCuda, {t},
                   KernelDef{&ChannelsLast<MaxPoolGradKernel>});
    RegisterKernel("AvgPoolGrad", DeviceType::kCuda, {t},
                   KernelDef{&ChannelsLast<AvgPoolGradKernel>});
    RegisterKernel("MaxPoolGradGrad", DeviceType::kCuda, {t},
                   KernelDef{&ChannelsLast<MaxPoolGradGradKernel>});
    RegisterKernel("AvgPool3D", DeviceType::kCuda, {t}, KernelDef{&AvgPoolKernel});
    RegisterKernel("AvgPool3DGrad", DeviceType::kCuda, {t}, KernelDef{&AvgPoolGradKernel});
    RegisterKernel("MaxPool3DGradGrad", DeviceType::kCuda, {t}, KernelDef{&MaxPoolGradGradKernel});
  }
  // TensorFlow's MaxPool3D and MaxPool3DGrad have no float64.
  for (DType t : {kFloat32, kBFloat16}) {
    RegisterKernel("MaxPool3D", DeviceType::kCuda, {t}, KernelDef{&MaxPoolKernel});
    RegisterKernel("MaxPool3DGrad", DeviceType::kCuda, {t}, KernelDef{&MaxPoolGradKernel});
  }
  return true;
}();

}  // namespace
}  // namespace duet
