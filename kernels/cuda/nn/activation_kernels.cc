// Relu, Relu6, Elu, LeakyRelu, Sigmoid, Tanh, Softplus, ReluGrad (ops/math) and BiasAdd (ops/nn) on
// CUDA: one elementwise .cu kernel each (activation_launchers.h), half types computed in float32.
//
// Hand-written rather than cudnnActivationForward: cuDNN's activations take no integer or
// bfloat16 tensors (Relu and Relu6 are registered for int32/int64 too), have no softplus, and a
// descriptor round trip costs more than these memory-bound passes; one launcher serves all dtypes.
#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "kernels/common/channels_last_kernel.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/nn/activation_launchers.h"
#include "kernels/cuda/nn/nn_kernel_util.h"
#include "kernels/kernel_registry.h"
#include "ops/math/math_attrs.h"

namespace duet {
namespace {

absl::Status RunActivation(KernelContext& ctx, cuda::NnActivation act, float alpha) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  if (y.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(const cuda::NnType type, cuda::ToNnType(x.dtype()));
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * device, cuda::CurrentContext(ctx.device()));
  return cuda::CudaStatus(cuda::LaunchActivation(act, type, x.raw_data(), y.raw_data(),
                                                 y.num_elements(), alpha, device->stream()),
                          ctx.call().op->name);
}

template <cuda::NnActivation kAct>
absl::Status ActivationKernel(KernelContext& ctx) {
  return RunActivation(ctx, kAct, 0.0f);
}

absl::Status LeakyReluKernel(KernelContext& ctx) {
  return RunActivation(ctx, cuda::NnActivation::kLeakyRelu, ctx.attr(LeakyReluAttrs::kAlpha));
}

// Inputs: gradients, features (same shape).
absl::Status ReluGradKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(const cuda::NnType type, cuda::ToNnType(out.dtype()));
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * device, cuda::CurrentContext(ctx.device()));
  return cuda::CudaStatus(
      cuda::LaunchReluGrad(type, ctx.input(0).raw_data(), ctx.input(1).raw_data(), out.raw_data(),
                           out.num_elements(), device->stream()),
      "ReluGrad");
}

// Inputs: value, bias (along value's last dim, NHWC).
absl::Status BiasAddKernel(KernelContext& ctx) {
  const Tensor& value = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(const cuda::NnType type, cuda::ToNnType(value.dtype()));
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * device, cuda::CurrentContext(ctx.device()));
  return cuda::CudaStatus(cuda::LaunchBiasActivation(
                              cuda::NnActivation::kNone, type, value.raw_data(),
                              ctx.input(1).raw_data(), nullptr, out.raw_data(), out.num_elements(),
                              value.shape()[value.rank() - 1], 0.0f, device->stream()),
                          "BiasAdd");
}

const bool kRegistered = [] {
  using A = cuda::NnActivation;
  const auto all = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64};
  const auto floats = {kFloat32, kFloat64, kFloat16, kBFloat16};
  for (DType t : all) {
    RegisterKernel("Relu", DeviceType::kCuda, {t}, KernelDef{&ActivationKernel<A::kRelu>});
    RegisterKernel("Relu6", DeviceType::kCuda, {t}, KernelDef{&ActivationKernel<A::kRelu6>});
    RegisterKernel("ReluGrad", DeviceType::kCuda, {t}, KernelDef{&ReluGradKernel});
    RegisterKernel("BiasAdd", DeviceType::kCuda, {t}, KernelDef{&ChannelsLast<BiasAddKernel>});
  }
  for (DType t : floats) {
    RegisterKernel("Elu", DeviceType::kCuda, {t}, KernelDef{&ActivationKernel<A::kElu>});
    RegisterKernel("Tanh", DeviceType::kCuda, {t}, KernelDef{&ActivationKernel<A::kTanh>});
    RegisterKernel("Sigmoid", DeviceType::kCuda, {t}, KernelDef{&ActivationKernel<A::kSigmoid>});
    RegisterKernel("Softplus", DeviceType::kCuda, {t}, KernelDef{&ActivationKernel<A::kSoftplus>});
    RegisterKernel("LeakyRelu", DeviceType::kCuda, {t}, KernelDef{&LeakyReluKernel});
  }
  return true;
}();

}  // namespace
}  // namespace duet
