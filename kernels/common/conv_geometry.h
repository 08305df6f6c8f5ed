// The sizes of a Conv2D read from its shapes and ConvAttrs: what the CPU and CUDA convolution
// kernels (Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter, _FusedConv2D) share.
//
// All of them declare ConvAttrs (ops/nn/nn_attrs.h); each kernel passes the shapes of the forward
// convolution, which sit at different inputs and outputs.
#pragma once

#include <cstdint>

#include "core/shape.h"
#include "kernels/common/window_geometry.h"
#include "kernels/kernel_registry.h"

namespace duet {

// Sizes of one Conv2D (NHWC input, HWIO filter); the arrays are [height, width].
struct ConvGeometry {
  int64_t batch = 0, in_c = 0, out_c = 0;
  int64_t in[2] = {}, window[2] = {}, out[2] = {}, stride[2] = {}, dilation[2] = {};
  WindowPadding pad[2];
};

// The geometry of the Conv2D with input shape `in`, filter shape `filter` and output shape `out`
// (the op's shape function checked that they fit together), with strides, dilations and padding
// from the ConvAttrs of `ctx`.
ConvGeometry MakeConvGeometry(const KernelContext& ctx, const Shape& in, const Shape& filter,
                              const Shape& out);

}  // namespace duet
