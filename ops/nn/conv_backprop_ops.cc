// Conv2DBackpropInput and Conv2DBackpropFilter: the gradients of Conv2D's input and filter;
// Conv3DBackpropInputV2 and Conv3DBackpropFilterV2: those of Conv3D's.
#include "ops/nn/conv_shape.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/nn_backprop_ops.h"
#include "ops/nn/window_shape.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

const OpDef* const kConv2DBackpropInput =
    DeclareConvAttrs(OpDefBuilder("Conv2DBackpropInput")
                         .Input("input_sizes", kInt32)
                         .HostInputs({"input_sizes"})
                         .Input("filter", "T")
                         .Input("out_backprop", "T")
                         .Output("output", "T"))
        .ChannelsFirst({"out_backprop"}, {"input_sizes"}, {"output"})
        .Doc(
            "The gradient of Conv2D's NHWC input (of shape input_sizes) from its filter and the "
            "gradient of its output.")
        .SetShapeFn(ConvBackpropInputShapeFn<ConvKind::kConv2D>)
        .Register();

const OpDef* const kConv2DBackpropFilter =
    DeclareConvAttrs(OpDefBuilder("Conv2DBackpropFilter")
                         .Input("input", "T")
                         .Input("filter_sizes", kInt32)
                         .HostInputs({"filter_sizes"})
                         .Input("out_backprop", "T")
                         .Output("output", "T"))
        .ChannelsFirst({"input", "out_backprop"}, {}, {})
        .Doc(
            "The gradient of Conv2D's HWIO filter (of shape filter_sizes) from its input and the "
            "gradient of its output.")
        .SetShapeFn(ConvBackpropFilterShapeFn<ConvKind::kConv2D>)
        .Register();

// TensorFlow's V2 ops (the V1 ones, deprecated, took a whole input or filter tensor for its shape).
const OpDef* const kConv3DBackpropInputV2 =
    DeclareConv3DAttrs(OpDefBuilder("Conv3DBackpropInputV2")
                           .Input("input_sizes", "Tshape")
                           .HostInputs({"input_sizes"})
                           .Input("filter", "T")
                           .Input("out_backprop", "T")
                           .Output("output", "T"))
        .TypeAttr(Conv3DBackpropInputAttrs::kTshape, {kInt32, kInt64}, kInt32)
        .Doc(
            "The gradient of Conv3D's NDHWC input (of shape input_sizes) from its filter and the "
            "gradient of its output.")
        .SetShapeFn(ConvBackpropInputShapeFn<ConvKind::kConv3D>)
        .Register();

const OpDef* const kConv3DBackpropFilterV2 =
    DeclareConv3DAttrs(OpDefBuilder("Conv3DBackpropFilterV2")
                           .Input("input", "T")
                           .Input("filter_sizes", kInt32)
                           .HostInputs({"filter_sizes"})
                           .Input("out_backprop", "T")
                           .Output("output", "T"))
        .Doc(
            "The gradient of Conv3D's DHWIO filter (of shape filter_sizes) from its input and the "
            "gradient of its output.")
        .SetShapeFn(ConvBackpropFilterShapeFn<ConvKind::kConv3D>)
        .Register();

}  // namespace

Tensor conv2d_backprop_input(const Shape& input_sizes, const Tensor& filter,
                             const Tensor& out_backprop, std::vector<int64_t> strides,
                             std::string padding, std::vector<int64_t> dilations,
                             std::vector<int64_t> explicit_paddings, OpSite site) {
  OpCall call(kConv2DBackpropInput,
              {ConvSizesTensor(input_sizes, "input_sizes"), filter, out_backprop}, site);
  SetConvWindowAttrs(call, ConvKind::kConv2D, std::move(strides), std::move(padding),
                     std::move(dilations), std::move(explicit_paddings));
  return RunSingleOutputOp(call);
}

Tensor conv2d_backprop_input(const Shape& input_sizes, const Tensor& filter,
                             const Tensor& out_backprop, std::vector<int64_t> strides,
                             std::string padding, OpSite site) {
  return conv2d_backprop_input(input_sizes, filter, out_backprop, std::move(strides),
                               std::move(padding), {1, 1, 1, 1}, {}, site);
}

Tensor conv2d_backprop_filter(const Tensor& input, const Shape& filter_sizes,
                              const Tensor& out_backprop, std::vector<int64_t> strides,
                              std::string padding, std::vector<int64_t> dilations,
                              std::vector<int64_t> explicit_paddings, OpSite site) {
  OpCall call(kConv2DBackpropFilter,
              {input, ConvSizesTensor(filter_sizes, "filter_sizes"), out_backprop}, site);
  SetConvWindowAttrs(call, ConvKind::kConv2D, std::move(strides), std::move(padding),
                     std::move(dilations), std::move(explicit_paddings));
  return RunSingleOutputOp(call);
}

Tensor conv2d_backprop_filter(const Tensor& input, const Shape& filter_sizes,
                              const Tensor& out_backprop, std::vector<int64_t> strides,
                              std::string padding, OpSite site) {
  return conv2d_backprop_filter(input, filter_sizes, out_backprop, std::move(strides),
                                std::move(padding), {1, 1, 1, 1}, {}, site);
}

Tensor conv2d_explicit_padding(const Tensor& input, const Tensor& filter,
                               std::vector<int64_t> strides, std::vector<int64_t> explicit_paddings,
                               std::vector<int64_t> dilations, OpSite site) {
  // Conv2D is defined in conv_ops.cc; looked up once (after static initialization registered it).
  static const OpDef* const conv2d_op = OpRegistry::Global().Find("Conv2D");
  OpCall call(conv2d_op, {input, filter}, site);
  // Conv2D declares the same ConvAttrs.
  SetConvWindowAttrs(call, ConvKind::kConv2D, std::move(strides), "EXPLICIT", std::move(dilations),
                     std::move(explicit_paddings));
  return RunSingleOutputOp(call);
}

Tensor conv3d_backprop_input(const Shape& input_sizes, const Tensor& filter,
                             const Tensor& out_backprop, std::vector<int64_t> strides,
                             std::string padding, std::vector<int64_t> dilations, OpSite site) {
  OpCall call(kConv3DBackpropInputV2,
              {ConvSizesTensor(input_sizes, "input_sizes"), filter, out_backprop}, site);
  SetConvWindowAttrs(call, ConvKind::kConv3D, std::move(strides), std::move(padding),
                     std::move(dilations));
  return RunSingleOutputOp(call);
}

Tensor conv3d_backprop_filter(const Tensor& input, const Shape& filter_sizes,
                              const Tensor& out_backprop, std::vector<int64_t> strides,
                              std::string padding, std::vector<int64_t> dilations, OpSite site) {
  OpCall call(kConv3DBackpropFilterV2,
              {input, ConvSizesTensor(filter_sizes, "filter_sizes"), out_backprop}, site);
  SetConvWindowAttrs(call, ConvKind::kConv3D, std::move(strides), std::move(padding),
                     std::move(dilations));
  return RunSingleOutputOp(call);
}

}  // namespace duet
