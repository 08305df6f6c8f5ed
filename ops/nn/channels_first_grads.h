// Gradients of channels-first calls (Note [Channels-first] in ops/channels_first.cc): the
// gradient of the channels-last twin between transpose ops, registered as
// `GradientRegistrar("Conv2D", ChannelsLastGradient<Conv2DGrad>, ...)`.
#pragma once

#include "ops/channels_first.h"
#include "ops/gradient.h"

namespace duet {

// `twin_gradient` run on ctx's call's channels-last twin: kept image inputs and outputs and the
// image outputs' gradients transposed channels-last, kept image-shape inputs permuted, and the
// image inputs' gradients transposed back. Op functions throughout, so it differentiates again.
TensorList ChannelsLastGradientOf(const GradientContext& ctx, GradientFn twin_gradient);

template <GradientFn F>
TensorList ChannelsLastGradient(const GradientContext& ctx) {
  if (!IsChannelsFirst(ctx.op(), ctx.attrs())) return F(ctx);
  return ChannelsLastGradientOf(ctx, F);
}

}  // namespace duet
