// Gradients of Conv2D, DepthwiseConv2dNative, Conv3D and the pooling ops, and of their backward
// ops, so that gradients of any order exist. All are written with op functions (never host reads),
// so an enclosing tape differentiates them again.
//
// The conv ops are bilinear, and each backward op is the adjoint of its forward op (Conv2D,
// DepthwiseConv2dNative or Conv3D, whose gradients are the same identities over each family's own
// ops) in
// one argument: <conv2d(x, f), dy> = <x, backprop_input(f, dy)> = <f, backprop_filter(x, dy)>.
// Differentiating either side of these identities gives every gradient below. The pooling backward
// ops are linear in their gradient operand (MaxPoolGradGrad and MaxPoolGrad are each other's
// adjoints, as are AvgPool and AvgPoolGrad) and piecewise constant in the max-pooling inputs.
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "ops/gradient.h"
#include "ops/math/math_ops.h"
#include "ops/nn/channels_first_grads.h"
#include "ops/nn/conv_shape.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/nn_backprop_ops.h"
#include "ops/nn/nn_ops.h"
#include "ops/nn/window_shape.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"

namespace duet {
namespace {

using Ints = std::vector<int64_t>;

// The attrs a convolution gradient passes on to the ops it calls.
struct ConvParams {
  ConvKind kind;
  const Ints& strides;
  const std::string& padding;
  const Ints& explicit_paddings;
  const Ints& dilations;
};

ConvParams ReadConvParams(const GradientContext& ctx, ConvKind kind) {
  static const Ints kNoPaddings;  // Conv3D's family has no explicit_paddings
  const ConvWindowKeys& keys = ConvWindowKeysOf(kind);
  return {kind, ctx.attr(keys.strides), ctx.attr(keys.padding),
          keys.explicit_paddings != nullptr ? ctx.attr(*keys.explicit_paddings) : kNoPaddings,
          ctx.attr(keys.dilations)};
}

Tensor Conv(const ConvParams& a, const Tensor& input, const Tensor& filter) {
  if (a.kind == ConvKind::kConv3D) return conv3d(input, filter, a.strides, a.padding, a.dilations);
  if (a.kind == ConvKind::kDepthwise) {
    if (a.padding == "EXPLICIT") {
      return depthwise_conv2d_explicit_padding(input, filter, a.strides, a.explicit_paddings,
                                               a.dilations);
    }
    return depthwise_conv2d(input, filter, a.strides, a.padding, a.dilations);
  }
  if (a.padding == "EXPLICIT") {
    return conv2d_explicit_padding(input, filter, a.strides, a.explicit_paddings, a.dilations);
  }
  return conv2d(input, filter, a.strides, a.padding, a.dilations);
}

// The backprop-input op with its input_sizes read from `input` when the graph runs: for a trace
// whose batch dim was relaxed (duet::function's retrace for a short last batch), where the static
// shape is unknown. TensorFlow's conv gradients always pass shape(input) this way.
Tensor BackpropInputOfDynamicShape(const ConvParams& a, const Tensor& input, const Tensor& filter,
                                   const Tensor& out_backprop) {
  const char* name = a.kind == ConvKind::kConv3D      ? "Conv3DBackpropInputV2"
                     : a.kind == ConvKind::kDepthwise ? "DepthwiseConv2dNativeBackpropInput"
                                                      : "Conv2DBackpropInput";
  OpCall call(OpRegistry::Global().Find(name), {shape_of(input, kInt32), filter, out_backprop}, {});
  SetConvWindowAttrs(call, a.kind, a.strides, a.padding, a.dilations, a.explicit_paddings);
  return RunSingleOutputOp(call);
}

// The gradient of `input` (an operand of a convolution with `filter`) from out_backprop.
Tensor BackpropInput(const ConvParams& a, const Tensor& input, const Tensor& filter,
                     const Tensor& out_backprop) {
  const Shape& input_sizes = input.shape();
  if (!input_sizes.is_fully_defined()) {
    return BackpropInputOfDynamicShape(a, input, filter, out_backprop);
  }
  if (a.kind == ConvKind::kConv3D) {
    return conv3d_backprop_input(input_sizes, filter, out_backprop, a.strides, a.padding,
                                 a.dilations);
  }
  if (a.kind == ConvKind::kDepthwise) {
    return depthwise_conv2d_backprop_input(input_sizes, filter, out_backprop, a.strides, a.padding,
                                           a.dilations, a.explicit_paddings);
  }
  return conv2d_backprop_input(input_sizes, filter, out_backprop, a.strides, a.padding, a.dilations,
                               a.explicit_paddings);
}

Tensor BackpropFilter(const ConvParams& a, const Tensor& input, const Shape& filter_sizes,
                      const Tensor& out_backprop) {
  if (a.kind == ConvKind::kConv3D) {
    return conv3d_backprop_filter(input, filter_sizes, out_backprop, a.strides, a.padding,
                                  a.dilations);
  }
  if (a.kind == ConvKind::kDepthwise) {
    return depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, a.strides, a.padding,
                                            a.dilations, a.explicit_paddings);
  }
  return conv2d_backprop_filter(input, filter_sizes, out_backprop, a.strides, a.padding,
                                a.dilations, a.explicit_paddings);
}

// Conv2D(input, filter), DepthwiseConv2dNative(input, filter) and Conv3D(input, filter).
template <ConvKind kind>
TensorList ConvGrad(const GradientContext& ctx) {
  const ConvParams a = ReadConvParams(ctx, kind);
  const Tensor& g = ctx.grad(0);
  // The first layer's input gradient is rarely wanted and costs a whole convolution.
  return {ctx.needs_grad(0) ? BackpropInput(a, ctx.input(0), ctx.input(1), g) : Tensor(),
          ctx.needs_grad(1) ? BackpropFilter(a, ctx.input(0), ctx.input_shape(1), g) : Tensor()};
}

// Conv2DBackpropInput(input_sizes, filter, out_backprop) and its depthwise and 3-D twins; g has
// the input's shape.
template <ConvKind kind>
TensorList ConvBackpropInputGrad(const GradientContext& ctx) {
  const ConvParams a = ReadConvParams(ctx, kind);
  const Tensor& g = ctx.grad(0);
  return {Tensor(), BackpropFilter(a, g, ctx.input_shape(1), ctx.input(2)),
          Conv(a, g, ctx.input(1))};
}

// Conv2DBackpropFilter(input, filter_sizes, out_backprop) and its depthwise and 3-D twins; g has
// the filter's shape.
template <ConvKind kind>
TensorList ConvBackpropFilterGrad(const GradientContext& ctx) {
  const ConvParams a = ReadConvParams(ctx, kind);
  const Tensor& g = ctx.grad(0);
  return {BackpropInput(a, ctx.input(0), g, ctx.input(2)), Tensor(), Conv(a, ctx.input(0), g)};
}

// MaxPool(input) -> output.
TensorList MaxPoolGrad(const GradientContext& ctx) {
  return {max_pool_grad(ctx.input(0), ctx.output(0), ctx.grad(0), ctx.attr(PoolAttrs::kKsize),
                        ctx.attr(PoolAttrs::kStrides), ctx.attr(PoolAttrs::kPadding),
                        ctx.attr(MaxPoolAttrs::kExplicitPaddings))};
}

// MaxPoolGrad(orig_input, orig_output, grad). Its output is piecewise constant in orig_input and
// orig_output (they only choose where grad goes), so they get no gradient (undefined rather than
// zeros, which spares the tape a backward pass through the forward MaxPool).
TensorList MaxPoolGradGrad(const GradientContext& ctx) {
  const Ints& ksize = ctx.attr(PoolAttrs::kKsize);
  const Ints& strides = ctx.attr(PoolAttrs::kStrides);
  const std::string& padding = ctx.attr(PoolAttrs::kPadding);
  const Tensor& x = ctx.input(0);
  const Tensor& g = ctx.grad(0);
  if (padding != "EXPLICIT") {
    return {Tensor(), Tensor(), max_pool_grad_grad(x, ctx.input(1), g, ksize, strides, padding)};
  }
  // MaxPoolGradGrad has no EXPLICIT padding (as in TensorFlow). Padding the input with -inf,
  // which never wins a window, and g with zeros, makes VALID pooling pick the same maxima.
  const Ints& p = ctx.attr(MaxPoolAttrs::kExplicitPaddings);
  const std::vector<std::pair<int64_t, int64_t>> pads = {
      {0, 0}, {p[2], p[3]}, {p[4], p[5]}, {0, 0}};
  const Tensor inside = cast(pad(ones_like(x), pads), kBool);
  const Tensor padded_x =
      where(inside, pad(x, pads), scalar(-std::numeric_limits<double>::infinity(), x.dtype()));
  return {Tensor(), Tensor(),
          max_pool_grad_grad(padded_x, ctx.input(1), pad(g, pads), ksize, strides, "VALID")};
}

// MaxPoolGradGrad(orig_input, orig_output, grad): linear in grad, with MaxPoolGrad as adjoint.
TensorList MaxPoolGradGradGrad(const GradientContext& ctx) {
  return {Tensor(), Tensor(),
          max_pool_grad(ctx.input(0), ctx.input(1), ctx.grad(0), ctx.attr(PoolAttrs::kKsize),
                        ctx.attr(PoolAttrs::kStrides), ctx.attr(PoolAttrs::kPadding))};
}

// MaxPool3D(input) -> output.
TensorList MaxPool3DGrad(const GradientContext& ctx) {
  return {max_pool3d_grad(ctx.input(0), ctx.output(0), ctx.grad(0), ctx.attr(PoolAttrs::kKsize),
                          ctx.attr(PoolAttrs::kStrides), ctx.attr(PoolAttrs::kPadding))};
}

// MaxPool3DGrad(orig_input, orig_output, grad): as MaxPoolGrad's (no EXPLICIT padding in 3-D).
TensorList MaxPool3DGradGrad(const GradientContext& ctx) {
  return {Tensor(), Tensor(),
          max_pool3d_grad_grad(ctx.input(0), ctx.input(1), ctx.grad(0), ctx.attr(PoolAttrs::kKsize),
                               ctx.attr(PoolAttrs::kStrides), ctx.attr(PoolAttrs::kPadding))};
}

// MaxPool3DGradGrad(orig_input, orig_output, grad): linear in grad, with MaxPool3DGrad as adjoint.
TensorList MaxPool3DGradGradGrad(const GradientContext& ctx) {
  return {Tensor(), Tensor(),
          max_pool3d_grad(ctx.input(0), ctx.input(1), ctx.grad(0), ctx.attr(PoolAttrs::kKsize),
                          ctx.attr(PoolAttrs::kStrides), ctx.attr(PoolAttrs::kPadding))};
}

// AvgPool(value) when the graph does not know value's shape (a relaxed trace): AvgPoolGrad
// (`grad_op`) reads it at run time. Only graphs get here: an eager input's shape is known.
TensorList AvgPoolGradOfDynamicShape(const GradientContext& ctx, const char* grad_op, int rank) {
  return {RunPoolOp(OpRegistry::Global().Find(grad_op),
                    {shape_of(ctx.input(0), kInt32), ctx.grad(0)}, ctx.attr(PoolAttrs::kKsize),
                    ctx.attr(PoolAttrs::kStrides), ctx.attr(PoolAttrs::kPadding), rank, {})};
}

// AvgPool(value).
TensorList AvgPoolGrad(const GradientContext& ctx) {
  if (!ctx.input_shape(0).is_fully_defined()) {
    return AvgPoolGradOfDynamicShape(ctx, "AvgPoolGrad", 2);
  }
  return {avg_pool_grad(ctx.input_shape(0), ctx.grad(0), ctx.attr(PoolAttrs::kKsize),
                        ctx.attr(PoolAttrs::kStrides), ctx.attr(PoolAttrs::kPadding))};
}

// AvgPoolGrad(orig_input_shape, grad): linear in grad, with AvgPool as adjoint.
TensorList AvgPoolGradGrad(const GradientContext& ctx) {
  return {Tensor(), avg_pool(ctx.grad(0), ctx.attr(PoolAttrs::kKsize),
                             ctx.attr(PoolAttrs::kStrides), ctx.attr(PoolAttrs::kPadding))};
}

const GradientRegistrar kConv2DGrad("Conv2D", ChannelsLastGradient<ConvGrad<ConvKind::kConv2D>>,
                                    {0, 1});
const GradientRegistrar kConv2DBackpropInputGrad(
    "Conv2DBackpropInput", ChannelsLastGradient<ConvBackpropInputGrad<ConvKind::kConv2D>>, {1, 2});
const GradientRegistrar kConv2DBackpropFilterGrad(
    "Conv2DBackpropFilter", ChannelsLastGradient<ConvBackpropFilterGrad<ConvKind::kConv2D>>,
    {0, 2});
const GradientRegistrar kDepthwiseConv2dNativeGrad(
    "DepthwiseConv2dNative", ChannelsLastGradient<ConvGrad<ConvKind::kDepthwise>>, {0, 1});
const GradientRegistrar kDepthwiseConv2dNativeBackpropInputGrad(
    "DepthwiseConv2dNativeBackpropInput",
    ChannelsLastGradient<ConvBackpropInputGrad<ConvKind::kDepthwise>>, {1, 2});
const GradientRegistrar kDepthwiseConv2dNativeBackpropFilterGrad(
    "DepthwiseConv2dNativeBackpropFilter",
    ChannelsLastGradient<ConvBackpropFilterGrad<ConvKind::kDepthwise>>, {0, 2});
const GradientRegistrar kConv3DGrad("Conv3D", ConvGrad<ConvKind::kConv3D>, {0, 1});
const GradientRegistrar kConv3DBackpropInputV2Grad("Conv3DBackpropInputV2",
                                                   ConvBackpropInputGrad<ConvKind::kConv3D>,
                                                   {1, 2});
const GradientRegistrar kConv3DBackpropFilterV2Grad("Conv3DBackpropFilterV2",
                                                    ConvBackpropFilterGrad<ConvKind::kConv3D>,
                                                    {0, 2});
const GradientRegistrar kMaxPoolGrad("MaxPool", ChannelsLastGradient<MaxPoolGrad>, {0}, {0});
const GradientRegistrar kMaxPoolGradGrad("MaxPoolGrad", ChannelsLastGradient<MaxPoolGradGrad>,
                                         {0, 1});
const GradientRegistrar kMaxPoolGradGradGrad("MaxPoolGradGrad",
                                             ChannelsLastGradient<MaxPoolGradGradGrad>, {0, 1});
// AvgPool3D(input).
TensorList AvgPool3DGrad(const GradientContext& ctx) {
  if (!ctx.input_shape(0).is_fully_defined()) {
    return AvgPoolGradOfDynamicShape(ctx, "AvgPool3DGrad", 3);
  }
  return {avg_pool3d_grad(ctx.input_shape(0), ctx.grad(0), ctx.attr(PoolAttrs::kKsize),
                          ctx.attr(PoolAttrs::kStrides), ctx.attr(PoolAttrs::kPadding))};
}

// AvgPool3DGrad(orig_input_shape, grad): linear in grad, with AvgPool3D as adjoint.
TensorList AvgPool3DGradGrad(const GradientContext& ctx) {
  return {Tensor(), avg_pool3d(ctx.grad(0), ctx.attr(PoolAttrs::kKsize),
                               ctx.attr(PoolAttrs::kStrides), ctx.attr(PoolAttrs::kPadding))};
}

const GradientRegistrar kAvgPoolGrad("AvgPool", ChannelsLastGradient<AvgPoolGrad>);
const GradientRegistrar kAvgPoolGradGrad("AvgPoolGrad", ChannelsLastGradient<AvgPoolGradGrad>);
const GradientRegistrar kMaxPool3DGrad("MaxPool3D", MaxPool3DGrad, {0}, {0});
const GradientRegistrar kMaxPool3DGradGrad("MaxPool3DGrad", MaxPool3DGradGrad, {0, 1});
const GradientRegistrar kMaxPool3DGradGradGrad("MaxPool3DGradGrad", MaxPool3DGradGradGrad, {0, 1});
const GradientRegistrar kAvgPool3DGrad("AvgPool3D", AvgPool3DGrad);
const GradientRegistrar kAvgPool3DGradGrad("AvgPool3DGrad", AvgPool3DGradGrad);

}  // namespace
}  // namespace duet
