// The Conv2D kernel on the CPU (the convolution itself is in conv2d_runner.h).
#include "kernels/cpu/nn/conv2d_runner.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

absl::Status Conv2DKernel(KernelContext& ctx) { return RunConv2D(ctx); }

const KernelRegistrar kConv2D("Conv2D", DeviceType::kCpu, {kFloat32, kFloat64, kBFloat16},
                              {Conv2DKernel});

}  // namespace
}  // namespace duet
