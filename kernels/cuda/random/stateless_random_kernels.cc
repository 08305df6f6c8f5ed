// CUDA kernels of the stateless random ops: the CPU's Philox stream and block layout, so a seed
// gives the CPU's numbers (uniform bit for bit, normal within a few ulps: see distributions.h).
// shape and seed are host inputs; the Scaled ops' parameters may live on either device.
#include "kernels/cuda/random/stateless_random_kernels.h"

#include "kernels/common/philox_seed.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

// The seed input's stream (SeedStream, as on the CPU) in the launchers' plain form.
cuda::PhiloxStream StreamOf(const Tensor& seed) {
  const philox::Stream s = SeedStream(seed);
  return {{s.key[0], s.key[1]}, {s.counter[0], s.counter[1], s.counter[2], s.counter[3]}};
}

template <typename T, bool kNormal>
absl::Status Generate(KernelContext& ctx, cudaStream_t stream) {
  Tensor& out = ctx.output(0);
  const cuda::PhiloxStream philox_stream = StreamOf(ctx.input(1));
  if constexpr (kNormal) {
    DUET_CUDA_RETURN_IF_ERROR(cuda::LaunchStatelessNormal(philox_stream, out.mutable_data<T>(),
                                                          out.num_elements(), stream));
  } else {
    DUET_CUDA_RETURN_IF_ERROR(cuda::LaunchStatelessUniform(philox_stream, out.mutable_data<T>(),
                                                           out.num_elements(), stream));
  }
  return absl::OkStatus();
}

template <typename T, bool kNormal>
absl::Status StatelessKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  return Generate<T, kNormal>(ctx, context->stream());
}

// A scalar parameter input, read by the kernel where it lives (a device scalar) or passed by
// value (a host constant, as the op functions make them).
template <typename T>
cuda::ScalarArg<T> ScalarOf(const Tensor& t) {
  if (t.device().is_cpu()) return {nullptr, t.data<T>()[0]};
  return {t.data<T>(), T(0)};
}

// rnd * stddev + mean.
template <typename T>
absl::Status NormalScaledKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  DUET_RETURN_IF_ERROR((Generate<T, true>(ctx, context->stream())));
  Tensor& out = ctx.output(0);
  DUET_CUDA_RETURN_IF_ERROR(cuda::LaunchNormalScale(out.mutable_data<T>(), out.num_elements(),
                                                    ScalarOf<T>(ctx.input(2)),
                                                    ScalarOf<T>(ctx.input(3)), context->stream()));
  return absl::OkStatus();
}

// rnd * (maxval - minval) + minval.
template <typename T>
absl::Status UniformScaledKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  DUET_RETURN_IF_ERROR((Generate<T, false>(ctx, context->stream())));
  Tensor& out = ctx.output(0);
  DUET_CUDA_RETURN_IF_ERROR(cuda::LaunchUniformScale(out.mutable_data<T>(), out.num_elements(),
                                                     ScalarOf<T>(ctx.input(2)),
                                                     ScalarOf<T>(ctx.input(3)), context->stream()));
  return absl::OkStatus();
}

const KernelRegistrar kNormalF32("StatelessRandomNormal", DeviceType::kCuda, {kFloat32},
                                 {StatelessKernel<float, true>});
const KernelRegistrar kNormalF64("StatelessRandomNormal", DeviceType::kCuda, {kFloat64},
                                 {StatelessKernel<double, true>});
const KernelRegistrar kUniformF32("StatelessRandomUniform", DeviceType::kCuda, {kFloat32},
                                  {StatelessKernel<float, false>});
const KernelRegistrar kUniformF64("StatelessRandomUniform", DeviceType::kCuda, {kFloat64},
                                  {StatelessKernel<double, false>});
const KernelRegistrar kNormalScaledF32("_StatelessRandomNormalScaled", DeviceType::kCuda,
                                       {kFloat32}, {NormalScaledKernel<float>});
const KernelRegistrar kNormalScaledF64("_StatelessRandomNormalScaled", DeviceType::kCuda,
                                       {kFloat64}, {NormalScaledKernel<double>});
const KernelRegistrar kUniformScaledF32("_StatelessRandomUniformScaled", DeviceType::kCuda,
                                        {kFloat32}, {UniformScaledKernel<float>});
const KernelRegistrar kUniformScaledF64("_StatelessRandomUniformScaled", DeviceType::kCuda,
                                        {kFloat64}, {UniformScaledKernel<double>});

}  // namespace
}  // namespace duet
