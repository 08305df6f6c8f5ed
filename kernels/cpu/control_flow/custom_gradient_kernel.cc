// DuetCustomGradient's kernel: its first input, as Identity (the node exists for its gradient).
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

absl::Status ValueKernel(KernelContext& ctx) {
  // A new handle onto the same memory: a tape must tell the output from the input.
  ctx.output(0) = ctx.input(0).ViewAs(ctx.input(0).dtype(), ctx.input(0).shape(), ctx.device());
  return absl::OkStatus();
}

// A view relabels no memory, so it serves every device.
const KernelRegistrar kCustomGradient("DuetCustomGradient", DeviceType::kCpu,
                                      {kFloat32, kFloat64, kFloat16, kBFloat16},
                                      {ValueKernel, /*allocates_outputs=*/true});
const KernelRegistrar kCustomGradientCuda("DuetCustomGradient", DeviceType::kCuda,
                                          {kFloat32, kFloat64, kFloat16, kBFloat16},
                                          {ValueKernel, /*allocates_outputs=*/true});

}  // namespace
}  // namespace duet
