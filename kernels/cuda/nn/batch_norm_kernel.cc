// FusedBatchNormV3 on CUDA, with the CPU kernel's contract (ops/nn/batch_norm_ops.cc): y; the
// running statistics (Bessel-corrected, blended by exponential_avg_factor); reserve spaces 1 and
// 2 = the mean and (biased) variance y was normalized with; reserve space 3 = 1 / sqrt(var + eps).
// So FusedBatchNormGradV3 works unchanged on either device.
//
// .cu kernels (batch_norm_launchers.h) rather than cuDNN's batch normalization: cuDNN's training
// call keeps a running variance it updates itself and returns the inverse std instead of the
// variance in its saved outputs, which is a different contract from the CPU's reserve spaces.
#include "core/error.h"
#include "kernels/common/channels_last_kernel.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/nn/batch_norm_launchers.h"
#include "kernels/cuda/nn/nn_kernel_util.h"
#include "kernels/kernel_registry.h"
#include "ops/nn/nn_attrs.h"

namespace duet {
namespace {

enum Input { kX, kScale, kOffset, kMean, kVariance };
enum Output { kY, kBatchMean, kBatchVariance, kReserve1, kReserve2, kReserve3 };

absl::Status FusedBatchNormKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(kX);
  const Shape& shape = x.shape();
  const int64_t rows = shape[0] * shape[1] * shape[2];
  const int64_t channels = shape[3];
  const float epsilon = ctx.attr(FusedBatchNormAttrs::kEpsilon);
  const float factor = ctx.attr(FusedBatchNormAttrs::kExponentialAvgFactor);
  const bool training = ctx.attr(FusedBatchNormAttrs::kIsTraining);
  if (channels == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(const cuda::NnType x_type, cuda::ToNnType(x.dtype()));
  const cuda::NnType u_type =
      x.dtype() == kFloat64 ? cuda::NnType::kFloat64 : cuda::NnType::kFloat32;
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * device, cuda::CurrentContext(ctx.device()));
  const cudaStream_t stream = device->stream();
  if (rows == 0 && training) {  // no statistics: NaN, as in TensorFlow
    for (int i = kBatchMean; i <= kReserve3; ++i) {
      DUET_RETURN_IF_ERROR(
          cuda::CudaStatus(cuda::LaunchFillNan(u_type, ctx.output(i).raw_data(), channels, stream),
                           "batch norm NaN statistics"));
    }
    return absl::OkStatus();
  }
  void* mean = ctx.output(kReserve1).raw_data();
  void* variance = ctx.output(kReserve2).raw_data();
  if (training) {
    DUET_RETURN_IF_ERROR(
        cuda::CudaStatus(cuda::LaunchBatchNormStatistics(x_type, x.raw_data(), rows, channels, mean,
                                                         variance, stream),
                         "batch norm statistics"));
  } else {
    const size_t bytes = ctx.output(kReserve1).nbytes();
    DUET_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(mean, ctx.input(kMean).raw_data(), bytes,
                                              cudaMemcpyDeviceToDevice, stream));
    DUET_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(variance, ctx.input(kVariance).raw_data(), bytes,
                                              cudaMemcpyDeviceToDevice, stream));
  }
  DUET_RETURN_IF_ERROR(cuda::CudaStatus(
      cuda::LaunchBatchNormApply(x_type, x.raw_data(), ctx.output(kY).raw_data(), rows, channels,
                                 epsilon, ctx.input(kScale).raw_data(),
                                 ctx.input(kOffset).raw_data(), mean, variance, stream),
      "batch norm apply"));
  // The old running statistics are read only when blending (they may be empty otherwise).
  const bool blend = training && factor != 1.0f;
  return cuda::CudaStatus(
      cuda::LaunchBatchNormFinish(
          u_type, rows, channels, epsilon, factor, training, mean, variance,
          blend ? ctx.input(kMean).raw_data() : nullptr,
          blend ? ctx.input(kVariance).raw_data() : nullptr, ctx.output(kBatchMean).raw_data(),
          ctx.output(kBatchVariance).raw_data(), ctx.output(kReserve3).raw_data(), stream),
      "batch norm statistics outputs");
}

const KernelRegistrar kFusedBatchNorm("FusedBatchNormV3", DeviceType::kCuda,
                                      {kFloat32, kFloat64, kBFloat16},
                                      {&ChannelsLast<FusedBatchNormKernel>});

}  // namespace
}  // namespace duet
