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

absl::Status Conv2DShape(ShapeContext& ctx) {
  DUET_ASSIGN_OR_RETURN(Shape out, Conv2DOutputShape(ctx));
  ctx.set_output(0, ctx.output(0).dtype, std::move(out));
  return absl::OkStatus();
}

const OpDef* const kConv2D =
    DeclareConvAttrs(
        OpDefBuilder("Conv2D").Input("input", "T").Input("filter", "T").Output("output", "T"))
        .Doc("2-D convolution: NHWC input, HWIO filter, TensorFlow's SAME/VALID padding.")
        .SetShapeFn(Conv2DShape)
        .Register();

absl::Status Conv3DShape(ShapeContext& ctx) {
  DUET_ASSIGN_OR_RETURN(Shape out, ConvOutputShape(ctx, ConvKind::kConv3D));
  ctx.set_output(0, ctx.output(0).dtype, std::move(out));
  return absl::OkStatus();
}

const OpDef* const kConv3D =
    DeclareConv3DAttrs(
        OpDefBuilder("Conv3D").Input("input", "T").Input("filter", "T").Output("output", "T"))
        .Doc("3-D convolution: NDHWC input, DHWIO filter, TensorFlow's SAME/VALID padding.")
        .SetShapeFn(Conv3DShape)
        .Register();

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& filter, std::vector<int64_t> strides,
              std::string padding, std::vector<int64_t> dilations, OpSite site) {
  OpCall call(kConv2D, {input, filter}, site);
  call.set(ConvAttrs::kStrides, ExpandNhwcAttr(std::move(strides)));
  call.set(ConvAttrs::kPadding, std::move(padding));
  call.set(ConvAttrs::kDilations, ExpandNhwcAttr(std::move(dilations)));
  return RunSingleOutputOp(call);
}

Tensor conv2d(const Tensor& input, const Tensor& filter, std::vector<int64_t> strides,
              std::string padding, OpSite site) {
  return conv2d(input, filter, std::move(strides), std::move(padding), {1, 1, 1, 1}, site);
}

Tensor conv3d(const Tensor& input, const Tensor& filter, std::vector<int64_t> strides,
              std::string padding, std::vector<int64_t> dilations, OpSite site) {
  OpCall call(kConv3D, {input, filter}, site);
  call.set(Conv3DAttrs::kStrides, ExpandNhwcAttr(std::move(strides), 3));
  call.set(Conv3DAttrs::kPadding, std::move(padding));
  call.set(Conv3DAttrs::kDilations, ExpandNhwcAttr(std::move(dilations), 3));
  return RunSingleOutputOp(call);
}

}  // namespace duet
