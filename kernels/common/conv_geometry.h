// The sizes of a 2-D or 3-D convolution read from its shapes and attrs: what the CPU and CUDA
// convolution kernels (Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter, _FusedConv2D,
// DepthwiseConv2dNative and its backprops, Conv3D and its backprops) share.
//
// Conv2D's family declares ConvAttrs, DepthwiseConv2dNative's DepthwiseConvAttrs and Conv3D's
// Conv3DAttrs (ops/nn/nn_attrs.h), with the window attrs at different positions; each kernel passes
// the shapes of the forward convolution, which sit at different inputs and outputs.
#pragma once

#include <cstdint>

#include "core/shape.h"
#include "kernels/common/direct_conv.h"
#include "kernels/common/window_geometry.h"
#include "kernels/kernel_registry.h"
#include "ops/nn/nn_attrs.h"

namespace duet {

// Sizes of one grouped convolution of NHWC (rank 2) or NDHWC (rank 3) input; the arrays are per
// spatial dim in the tensor's order, [height, width] or [depth, height, width]. The input and
// output channels split into `groups` equal groups, output group k reading only input group k; the
// filter is [window..., in_c / groups, out_c] (HWIO or DHWIO for groups = 1, which Conv3D always
// has and Conv2D has unless its input has a multiple of the filter's in_channels, Note [Grouped
// Conv2D] in ops/nn/conv_shape.cc; a depthwise filter [window_h, window_w, in_c, multiplier] has
// this layout with groups = in_c and out_c = in_c * multiplier).
struct ConvGeometry {
  int rank = 2;
  int64_t batch = 0, in_c = 0, out_c = 0, groups = 1;
  int64_t in[3] = {}, window[3] = {}, out[3] = {}, stride[3] = {}, dilation[3] = {};
  WindowPadding pad[3];

  // This convolution as a rank-3 one (a rank-2 convolution gains a leading depth of 1), so that
  // loops over the spatial dims are written once for both ranks.
  ConvGeometry As3D() const;
  // The products over the spatial dims of in, window and out: the cells of one input image, the
  // taps of the filter, the positions of one output image.
  int64_t InCells() const;
  int64_t WindowCells() const;
  int64_t OutCells() const;
  // The same sizes as plain numbers of rank 3, for the direct convolutions (direct_conv.h).
  DirectConvShape AsDirect() const;
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
