// The Conv2D and DepthwiseConv2dNative kernels on the CPU (the convolutions themselves are in
// conv2d_runner.h).
#include "kernels/cpu/nn/conv2d_runner.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

absl::Status Conv2DKernel(KernelContext& ctx) { return RunConv2D(ctx); }

absl::Status DepthwiseConv2dNativeKernel(KernelContext& ctx) { return RunDepthwiseConv2D(ctx); }

const KernelRegistrar kConv2D("Conv2D", DeviceType::kCpu, {kFloat32, kFloat64, kBFloat16},
                              {Conv2DKernel});
const KernelRegistrar kDepthwiseConv2dNative("DepthwiseConv2dNative", DeviceType::kCpu,
                                             {kFloat32, kFloat64, kBFloat16},
                                             {DepthwiseConv2dNativeKernel});

}  // namespace
}  // namespace duet
