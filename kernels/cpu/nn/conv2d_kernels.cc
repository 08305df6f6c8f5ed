// The Conv2D, DepthwiseConv2dNative and Conv3D kernels on the CPU (the convolutions themselves are
// in conv2d_runner.h).
#include "kernels/common/channels_last_kernel.h"
#include "kernels/cpu/nn/conv2d_runner.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

absl::Status Conv2DKernel(KernelContext& ctx) { return RunConv2D(ctx); }

absl::Status DepthwiseConv2dNativeKernel(KernelContext& ctx) { return RunDepthwiseConv2D(ctx); }

absl::Status Conv3DKernel(KernelContext& ctx) { return RunConv3D(ctx); }

const KernelRegistrar kConv2D("Conv2D", DeviceType::kCpu, {kFloat32, kFloat64, kBFloat16},
                              {ChannelsLast<Conv2DKernel>});
const KernelRegistrar kDepthwiseConv2dNative("DepthwiseConv2dNative", DeviceType::kCpu,
                                             {kFloat32, kFloat64, kBFloat16},
                                             {ChannelsLast<DepthwiseConv2dNativeKernel>});
const KernelRegistrar kConv3D("Conv3D", DeviceType::kCpu, {kFloat32, kFloat64, kBFloat16},
                              {Conv3DKernel});

}  // namespace
}  // namespace duet
