// DepthwiseConv2dNative, DepthwiseConv2dNativeBackpropInput and
// DepthwiseConv2dNativeBackpropFilter: each input channel convolved with its own `multiplier`
// filters (a grouped convolution with one group per input channel), and the gradients of its input
// and filter.
#include "ops/nn/conv_shape.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/nn_backprop_ops.h"
#include "ops/nn/nn_ops.h"
#include "ops/nn/window_shape.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

const OpDef* const kDepthwiseConv2dNative =
    DeclareDepthwiseConvAttrs(OpDefBuilder("DepthwiseConv2dNative")
                                  .Input("input", "T")
                                  .Input("filter", "T")
                                  .Output("output", "T"))
        .ChannelsFirst({"input"}, {}, {"output"})
        .Doc(
            "Depthwise 2-D convolution: NHWC input, filter [h, w, in_channels, multiplier]; output "
            "channel c * multiplier + m is input channel c convolved with filter[:, :, c, m].")
        .SetShapeFn(ConvShapeFn<ConvKind::kDepthwise>)
        .Register();

const OpDef* const kDepthwiseConv2dNativeBackpropInput =
    DeclareDepthwiseConvAttrs(OpDefBuilder("DepthwiseConv2dNativeBackpropInput")
                                  .Input("input_sizes", kInt32)
                                  .HostInputs({"input_sizes"})
                                  .Input("filter", "T")
                                  .Input("out_backprop", "T")
                                  .Output("output", "T"))
        .ChannelsFirst({"out_backprop"}, {"input_sizes"}, {"output"})
        .Doc(
            "The gradient of DepthwiseConv2dNative's NHWC input (of shape input_sizes) from its "
            "filter and the gradient of its output.")
        .SetShapeFn(ConvBackpropInputShapeFn<ConvKind::kDepthwise>)
        .Register();

const OpDef* const kDepthwiseConv2dNativeBackpropFilter =
    DeclareDepthwiseConvAttrs(OpDefBuilder("DepthwiseConv2dNativeBackpropFilter")
                                  .Input("input", "T")
                                  .Input("filter_sizes", kInt32)
                                  .HostInputs({"filter_sizes"})
                                  .Input("out_backprop", "T")
                                  .Output("output", "T"))
        .ChannelsFirst({"input", "out_backprop"}, {}, {})
        .Doc(
            "The gradient of DepthwiseConv2dNative's filter (of shape filter_sizes) from its input "
            "and the gradient of its output.")
        .SetShapeFn(ConvBackpropFilterShapeFn<ConvKind::kDepthwise>)
        .Register();

}  // namespace

Tensor depthwise_conv2d(const Tensor& input, const Tensor& filter, std::vector<int64_t> strides,
                        std::string padding, std::vector<int64_t> dilations, OpSite site) {
  OpCall call(kDepthwiseConv2dNative, {input, filter}, site);
  SetConvWindowAttrs(call, ConvKind::kDepthwise, std::move(strides), std::move(padding),
                     std::move(dilations), {});
  return RunSingleOutputOp(call);
}

Tensor depthwise_conv2d(const Tensor& input, const Tensor& filter, std::vector<int64_t> strides,
                        std::string padding, OpSite site) {
  return depthwise_conv2d(input, filter, std::move(strides), std::move(padding), {1, 1, 1, 1},
                          site);
}

Tensor depthwise_conv2d(const Tensor& input, const Tensor& filter, std::vector<int64_t> strides,
                        std::string padding, DataFormat format, std::vector<int64_t> dilations,
                        OpSite site) {
  OpCall call(kDepthwiseConv2dNative, {input, filter}, site);
  SetConvWindowAttrs(call, ConvKind::kDepthwise, ChannelsLastWindow(std::move(strides), format),
                     std::move(padding), ChannelsLastWindow(std::move(dilations), format), {});
  UseDataFormat(call, format);
  return RunSingleOutputOp(call);
}

Tensor depthwise_conv2d_explicit_padding(const Tensor& input, const Tensor& filter,
                                         std::vector<int64_t> strides,
                                         std::vector<int64_t> explicit_paddings,
                                         std::vector<int64_t> dilations, OpSite site) {
  OpCall call(kDepthwiseConv2dNative, {input, filter}, site);
  SetConvWindowAttrs(call, ConvKind::kDepthwise, std::move(strides), "EXPLICIT",
                     std::move(dilations), std::move(explicit_paddings));
  return RunSingleOutputOp(call);
}

Tensor depthwise_conv2d_backprop_input(const Shape& input_sizes, const Tensor& filter,
                                       const Tensor& out_backprop, std::vector<int64_t> strides,
                                       std::string padding, std::vector<int64_t> dilations,
                                       std::vector<int64_t> explicit_paddings, OpSite site) {
  OpCall call(kDepthwiseConv2dNativeBackpropInput,
              {ConvSizesTensor(input_sizes, "input_sizes"), filter, out_backprop}, site);
  SetConvWindowAttrs(call, ConvKind::kDepthwise, std::move(strides), std::move(padding),
                     std::move(dilations), std::move(explicit_paddings));
  return RunSingleOutputOp(call);
}

Tensor depthwise_conv2d_backprop_input(const Shape& input_sizes, const Tensor& filter,
                                       const Tensor& out_backprop, std::vector<int64_t> strides,
                                       std::string padding, OpSite site) {
  return depthwise_conv2d_backprop_input(input_sizes, filter, out_backprop, std::move(strides),
                                         std::move(padding), {1, 1, 1, 1}, {}, site);
}

Tensor depthwise_conv2d_backprop_filter(const Tensor& input, const Shape& filter_sizes,
                                        const Tensor& out_backprop, std::vector<int64_t> strides,
                                        std::string padding, std::vector<int64_t> dilations,
                                        std::vector<int64_t> explicit_paddings, OpSite site) {
  OpCall call(kDepthwiseConv2dNativeBackpropFilter,
              {input, ConvSizesTensor(filter_sizes, "filter_sizes"), out_backprop}, site);
  SetConvWindowAttrs(call, ConvKind::kDepthwise, std::move(strides), std::move(padding),
                     std::move(dilations), std::move(explicit_paddings));
  return RunSingleOutputOp(call);
}

Tensor depthwise_conv2d_backprop_filter(const Tensor& input, const Shape& filter_sizes,
                                        const Tensor& out_backprop, std::vector<int64_t> strides,
                                        std::string padding, OpSite site) {
  return depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, std::move(strides),
                                          std::move(padding), {1, 1, 1, 1}, {}, site);
}

}  // namespace duet
