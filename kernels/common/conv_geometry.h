// The sizes of a 2-D convolution read from its shapes and attrs: what the CPU and CUDA convolution
// kernels (Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter, _FusedConv2D, DepthwiseConv2dNative
// and its backprops) share.
//
// Conv2D's family declares ConvAttrs and DepthwiseConv2dNative's DepthwiseConvAttrs
// (ops/nn/nn_attrs.h), with the window attrs at different positions; each kernel passes the shapes
// of the forward convolution, which sit at different inputs and outputs.
#pragma once

#include <cstdint>

#include "core/shape.h"
#include "kernels/common/window_geometry.h"
#include "kernels/kernel_registry.h"
#include "ops/nn/nn_attrs.h"

namespace duet {

// Sizes of one grouped convolution of NHWC input; the arrays are [height, width]. The input and
// output channels split into `groups` equal groups, output group k reading only input group k; the
// filter is [window_h, window_w, in_c / groups, out_c] (HWIO for groups = 1, which Conv2D always
// has; a depthwise filter [window_h, window_w, in_c, multiplier] has this layout with groups =
// in_c and out_c = in_c * multiplier).
struct ConvGeometry {
  int64_t batch = 0, in_c = 0, out_c = 0, groups = 1;
  int64_t in[2] = {}, window[2] = {}, out[2] = {}, stride[2] = {}, dilation[2] = {};
  WindowPadding pad[2];
};

// The geometry of the `kind` convolution with input shape `in`, filter shape `filter` and output
// shape `out` (the op's shape function checked that they fit together), with strides, dilations
// and padding from the attrs of `ctx`, whose op is of that kind.
ConvGeometry MakeConvGeometry(const KernelContext& ctx, ConvKind kind, const Shape& in,
                              const Shape& filter, const Shape& out);
// MakeConvGeometry reading the window attrs through `keys` (an op that declares them at positions
// of its own: _FusedDepthwiseConv2dNative).
ConvGeometry MakeConvGeometry(const KernelContext& ctx, ConvKind kind, const ConvWindowKeys& keys,
                              const Shape& in, const Shape& filter, const Shape& out);

// MakeConvGeometry for Conv2D's family.
inline ConvGeometry MakeConvGeometry(const KernelContext& ctx, const Shape& in, const Shape& filter,
                                     const Shape& out) {
  return MakeConvGeometry(ctx, ConvKind::kConv2D, in, filter, out);
}

}  // namespace duet
