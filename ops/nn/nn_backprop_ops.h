// The backward ops of convolution, pooling and resizing, with TensorFlow's names and signatures
// (Conv2DBackpropInput, Conv2DBackpropFilter, DepthwiseConv2dNativeBackpropInput,
// DepthwiseConv2dNativeBackpropFilter, Conv3DBackpropInputV2, Conv3DBackpropFilterV2, MaxPoolGrad,
// AvgPoolGrad, MaxPoolGradGrad, their 3-D twins MaxPool3DGrad, AvgPool3DGrad, MaxPool3DGradGrad,
// ResizeBilinearGrad, ResizeNearestNeighborGrad). The gradients of Conv2D, Conv3D,
// DepthwiseConv2dNative, the pooling ops and the resizes are made of them, and each of them has a
// gradient made of the forward ops and each other, so gradients of any order exist. Images are
// NHWC, filters HWIO (depthwise filters [height, width, in_channels, multiplier]); `strides`,
// `ksize` and `dilations` take 4 entries [1, h, w, 1], 2 entries [h, w] or one for both, as in
// nn_ops.h. The sizes TensorFlow takes as int32 tensors (input_sizes, filter_sizes,
// orig_input_shape) are Shapes here; the op still receives an int32 tensor. float32, float64 and
// bfloat16. Every function throws duet::Error (naming the op, its inputs' shapes and the caller's
// line) on bad shapes or attrs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/shape.h"
#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet {

// The gradient of Conv2D's input (op Conv2DBackpropInput): the input of shape `input_sizes`
// [batch, height, width, in_channels] of a Conv2D with `filter` whose output had gradient
// `out_backprop`. `padding` is "SAME", "VALID" or "EXPLICIT"; with "EXPLICIT",
// `explicit_paddings` is [0, 0, top, bottom, left, right, 0, 0]. out_backprop's shape must be the
// Conv2D output shape of input_sizes and filter under these attrs.
Tensor conv2d_backprop_input(const Shape& input_sizes, const Tensor& filter,
                             const Tensor& out_backprop, std::vector<int64_t> strides,
                             std::string padding, std::vector<int64_t> dilations = {1, 1, 1, 1},
                             std::vector<int64_t> explicit_paddings = {}, OpSite site = {});
// Same, naming the node.
Tensor conv2d_backprop_input(const Shape& input_sizes, const Tensor& filter,
                             const Tensor& out_backprop, std::vector<int64_t> strides,
                             std::string padding, OpSite site);

// The gradient of Conv2D's filter (op Conv2DBackpropFilter): of shape `filter_sizes` [height,
// width, in_channels, out_channels], for a Conv2D of `input` whose output had gradient
// `out_backprop`. Attrs as conv2d_backprop_input's.
Tensor conv2d_backprop_filter(const Tensor& input, const Shape& filter_sizes,
                              const Tensor& out_backprop, std::vector<int64_t> strides,
                              std::string padding, std::vector<int64_t> dilations = {1, 1, 1, 1},
                              std::vector<int64_t> explicit_paddings = {}, OpSite site = {});
// Same, naming the node.
Tensor conv2d_backprop_filter(const Tensor& input, const Shape& filter_sizes,
                              const Tensor& out_backprop, std::vector<int64_t> strides,
                              std::string padding, OpSite site);

// Conv2D with EXPLICIT padding [0, 0, top, bottom, left, right, 0, 0] (conv2d() takes SAME and
// VALID); the gradients of the backprop ops need it.
Tensor conv2d_explicit_padding(const Tensor& input, const Tensor& filter,
                               std::vector<int64_t> strides, std::vector<int64_t> explicit_paddings,
                               std::vector<int64_t> dilations = {1, 1, 1, 1}, OpSite site = {});

// The gradient of DepthwiseConv2dNative's input (op DepthwiseConv2dNativeBackpropInput): the
// input of shape `input_sizes` [batch, height, width, in_channels] of a depthwise_conv2d with
// `filter` [height, width, in_channels, multiplier] whose output had gradient `out_backprop`.
// Attrs as conv2d_backprop_input's.
Tensor depthwise_conv2d_backprop_input(const Shape& input_sizes, const Tensor& filter,
                                       const Tensor& out_backprop, std::vector<int64_t> strides,
                                       std::string padding,
                                       std::vector<int64_t> dilations = {1, 1, 1, 1},
                                       std::vector<int64_t> explicit_paddings = {},
                                       OpSite site = {});
// Same, naming the node.
Tensor depthwise_conv2d_backprop_input(const Shape& input_sizes, const Tensor& filter,
                                       const Tensor& out_backprop, std::vector<int64_t> strides,
                                       std::string padding, OpSite site);

// The gradient of DepthwiseConv2dNative's filter (op DepthwiseConv2dNativeBackpropFilter): of
// shape `filter_sizes` [height, width, in_channels, multiplier], for a depthwise_conv2d of `input`
// whose output had gradient `out_backprop`. Attrs as conv2d_backprop_input's.
Tensor depthwise_conv2d_backprop_filter(const Tensor& input, const Shape& filter_sizes,
                                        const Tensor& out_backprop, std::vector<int64_t> strides,
                                        std::string padding,
                                        std::vector<int64_t> dilations = {1, 1, 1, 1},
                                        std::vector<int64_t> explicit_paddings = {},
                                        OpSite site = {});
// Same, naming the node.
Tensor depthwise_conv2d_backprop_filter(const Tensor& input, const Shape& filter_sizes,
                                        const Tensor& out_backprop, std::vector<int64_t> strides,
                                        std::string padding, OpSite site);

// DepthwiseConv2dNative with EXPLICIT padding [0, 0, top, bottom, left, right, 0, 0]
// (depthwise_conv2d() takes SAME and VALID); the gradients of its backprop ops need it.
Tensor depthwise_conv2d_explicit_padding(const Tensor& input, const Tensor& filter,
                                         std::vector<int64_t> strides,
                                         std::vector<int64_t> explicit_paddings,
                                         std::vector<int64_t> dilations = {1, 1, 1, 1},
                                         OpSite site = {});

// The gradient of Conv3D's input (op Conv3DBackpropInputV2): the NDHWC input of shape
// `input_sizes` [batch, depth, height, width, in_channels] of a conv3d with DHWIO `filter` whose
// output had gradient `out_backprop`. `strides`/`dilations` as conv3d's (5, 3 or 1 entries);
// `padding` "SAME" or "VALID".
Tensor conv3d_backprop_input(const Shape& input_sizes, const Tensor& filter,
                             const Tensor& out_backprop, std::vector<int64_t> strides,
                             std::string padding, std::vector<int64_t> dilations = {1},
                             OpSite site = {});
// The gradient of Conv3D's filter (op Conv3DBackpropFilterV2): of shape `filter_sizes` [depth,
// height, width, in_channels, out_channels], for a conv3d of `input` whose output had gradient
// `out_backprop`. Attrs as conv3d_backprop_input's.
Tensor conv3d_backprop_filter(const Tensor& input, const Shape& filter_sizes,
                              const Tensor& out_backprop, std::vector<int64_t> strides,
                              std::string padding, std::vector<int64_t> dilations = {1},
                              OpSite site = {});

// The gradient of MaxPool's input (op MaxPoolGrad): each window's `grad` value goes to the
// window's maximum in `orig_input` (the first in row-major order among equal maxima, as in
// TensorFlow); orig_output is max_pool(orig_input) under the same attrs (its shape is checked).
// `padding` "SAME", "VALID" or "EXPLICIT" (with explicit_paddings, as for conv2d_backprop_input).
Tensor max_pool_grad(const Tensor& orig_input, const Tensor& orig_output, const Tensor& grad,
                     std::vector<int64_t> ksize, std::vector<int64_t> strides, std::string padding,
                     std::vector<int64_t> explicit_paddings = {}, OpSite site = {});
// Same, naming the node.
Tensor max_pool_grad(const Tensor& orig_input, const Tensor& orig_output, const Tensor& grad,
                     std::vector<int64_t> ksize, std::vector<int64_t> strides, std::string padding,
                     OpSite site);

// The gradient of AvgPool's input (op AvgPoolGrad): an input of shape `orig_input_shape` whose
// every cell gets, from each window containing it, that window's `grad` divided by the number of
// input cells in the window. `padding` "SAME" or "VALID".
Tensor avg_pool_grad(const Shape& orig_input_shape, const Tensor& grad, std::vector<int64_t> ksize,
                     std::vector<int64_t> strides, std::string padding, OpSite site = {});

// The gradient of MaxPoolGrad's `grad` (op MaxPoolGradGrad): `grad` has orig_input's shape, and
// each output cell (orig_output's shape) is grad at its window's maximum in orig_input (chosen as
// by max_pool_grad). `padding` "SAME" or "VALID" (TensorFlow's op has no EXPLICIT).
Tensor max_pool_grad_grad(const Tensor& orig_input, const Tensor& orig_output, const Tensor& grad,
                          std::vector<int64_t> ksize, std::vector<int64_t> strides,
                          std::string padding, OpSite site = {});

// max_pool_grad, avg_pool_grad and max_pool_grad_grad for NDHWC pooling (ops MaxPool3DGrad,
// AvgPool3DGrad, MaxPool3DGradGrad), with max_pool3d's attrs (padding "SAME" or "VALID").
// max_pool3d_grad takes float32 and bfloat16 (as TensorFlow), the others also float64.
Tensor max_pool3d_grad(const Tensor& orig_input, const Tensor& orig_output, const Tensor& grad,
                       std::vector<int64_t> ksize, std::vector<int64_t> strides,
                       std::string padding, OpSite site = {});
Tensor avg_pool3d_grad(const Shape& orig_input_shape, const Tensor& grad,
                       std::vector<int64_t> ksize, std::vector<int64_t> strides,
                       std::string padding, OpSite site = {});
Tensor max_pool3d_grad_grad(const Tensor& orig_input, const Tensor& orig_output, const Tensor& grad,
                            std::vector<int64_t> ksize, std::vector<int64_t> strides,
                            std::string padding, OpSite site = {});

// The gradient of ResizeBilinear's images (op ResizeBilinearGrad): `grads` (float32, the resized
// shape) spread back onto an image of original_image's shape and dtype (float32, float64,
// float16, bfloat16) by the interpolation weights. Only original_image's shape is read.
Tensor resize_bilinear_grad(const Tensor& grads, const Tensor& original_image,
                            bool align_corners = false, bool half_pixel_centers = false,
                            OpSite site = {});
// The gradient of ResizeNearestNeighbor's images (op ResizeNearestNeighborGrad): each of `grads`
// added to the pixel it was copied from, in an image of spatial size `size` (int32 [2]).
// float32, float64, float16, bfloat16, int32.
Tensor resize_nearest_neighbor_grad(const Tensor& grads, const Tensor& size,
                                    bool align_corners = false, bool half_pixel_centers = false,
                                    OpSite site = {});

}  // namespace duet
