// Channels-last kernels that also serve channels-first calls (Note [Channels-first] in
// ops/channels_first.cc), registered as `{ChannelsLast<Conv2DKernel>}`.
#pragma once

#include "absl/base/optimization.h"
#include "absl/status/status.h"
#include "kernels/kernel_registry.h"
#include "ops/channels_first.h"

namespace duet {

// Runs `kernel` as ctx's call's channels-last twin: the image inputs transposed (dim 1 last),
// image-shape inputs and per-dim attrs permuted, then the image outputs transposed back into
// ctx's outputs. On the kernel's own device (Transpose kernels), so it serves every device.
absl::Status RunChannelsLastKernel(KernelContext& ctx, KernelFn kernel);

template <KernelFn F>
absl::Status ChannelsLast(KernelContext& ctx) {
  if (ABSL_PREDICT_TRUE(!IsChannelsFirst(ctx.call()))) return F(ctx);
  return RunChannelsLastKernel(ctx, F);
}

}  // namespace duet
