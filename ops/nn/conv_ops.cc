// Conv2D: 2-D convolution of NHWC input with an HWIO filter; Conv3D: 3-D convolution of NDHWC
// input with a DHWIO filter.
#include "ops/nn/conv_shape.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/nn_ops.h"
#include "ops/nn/window_shape.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

const OpDef* const kConv2D =
    DeclareConvAttrs(
        OpDefBuilder("Conv2D").Input("input", "T").Input("filter", "T").Output("output", "T"))
        .ChannelsFirst({"input"}, {}, {"output"})
        .Doc("2-D convolution: NHWC (or NCHW) input, HWIO filter, TensorFlow's SAME/VALID padding.")
        .SetShapeFn(ConvShapeFn<ConvKind::kConv2D>)
        .Register();

const OpDef* const kConv3D =
    DeclareConv3DAttrs(
        OpDefBuilder("Conv3D").Input("input", "T").Input("filter", "T").Output("output", "T"))
        .Doc("3-D convolution: NDHWC input, DHWIO filter, TensorFlow's SAME/VALID padding.")
        .SetShapeFn(ConvShapeFn<ConvKind::kConv3D>)
        .Register();

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& filter, std::vector<int64_t> strides,
              std::string padding, std::vector<int64_t> dilations, OpSite site) {
  OpCall call(kConv2D, {input, filter}, site);
  SetConvWindowAttrs(call, ConvKind::kConv2D, std::move(strides), std::move(padding),
                     std::move(dilations));
  return RunSingleOutputOp(call);
}

Tensor conv2d(const Tensor& input, const Tensor& filter, std::vector<int64_t> strides,
              std::string padding, OpSite site) {
  return conv2d(input, filter, std::move(strides), std::move(padding), {1, 1, 1, 1}, site);
}

Tensor conv2d(const Tensor& input, const Tensor& filter, std::vector<int64_t> strides,
              std::string padding, DataFormat format, std::vector<int64_t> dilations, OpSite site) {
  OpCall call(kConv2D, {input, filter}, site);
  SetConvWindowAttrs(call, ConvKind::kConv2D, ChannelsLastWindow(std::move(strides), format),
                     std::move(padding), ChannelsLastWindow(std::move(dilations), format));
  UseDataFormat(call, format);
  return RunSingleOutputOp(call);
}

Tensor conv3d(const Tensor& input, const Tensor& filter, std::vector<int64_t> strides,
              std::string padding, std::vector<int64_t> dilations, OpSite site) {
  OpCall call(kConv3D, {input, filter}, site);
  SetConvWindowAttrs(call, ConvKind::kConv3D, std::move(strides), std::move(padding),
                     std::move(dilations));
  return RunSingleOutputOp(call);
}

}  // namespace duet
