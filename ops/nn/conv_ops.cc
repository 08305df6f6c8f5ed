// Conv2D: 2-D convolution of NHWC input with an HWIO filter.
#include "ops/nn/conv_shape.h"
#include "ops/nn/nn_ops.h"
#include "ops/nn/window_shape.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

// Attr positions, in TensorFlow's declaration order.
enum Conv2DAttr {
  kConv2DT,
  kConv2DStrides,
  kConv2DUseCudnnOnGpu,
  kConv2DPadding,
  kConv2DExplicitPaddings,
  kConv2DDataFormat,
  kConv2DDilations
};

absl::Status Conv2DShape(ShapeContext& ctx) {
  const Conv2DAttrs attrs{
      .strides = ctx.attr<std::vector<int64_t>>(kConv2DStrides),
      .padding = ctx.attr<std::string>(kConv2DPadding),
      .explicit_paddings = ctx.attr<std::vector<int64_t>>(kConv2DExplicitPaddings),
      .dilations = ctx.attr<std::vector<int64_t>>(kConv2DDilations)};
  DUET_ASSIGN_OR_RETURN(Shape out,
                        Conv2DOutputShape(ctx.input_shape(0), ctx.input_shape(1), attrs));
  ctx.set_output(0, ctx.output(0).dtype, std::move(out));
  return absl::OkStatus();
}

const OpDef* const kConv2D =
    OpDefBuilder("Conv2D")
        .Input("input", "T")
        .Input("filter", "T")
        .Output("output", "T")
        .TypeAttr("T", {kFloat32, kFloat64, kBFloat16})
        .IntListAttr("strides")
        .BoolAttr("use_cudnn_on_gpu", true)
        .StringAttr("padding", {}, {"SAME", "VALID", "EXPLICIT"})
        .IntListAttr("explicit_paddings", std::vector<int64_t>{})
        .StringAttr("data_format", "NHWC", {"NHWC"})
        .IntListAttr("dilations", std::vector<int64_t>{1, 1, 1, 1})
        .Doc("2-D convolution: NHWC input, HWIO filter, TensorFlow's SAME/VALID padding.")
        .SetShapeFn(Conv2DShape)
        .Register();

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& filter, std::vector<int64_t> strides,
              std::string padding, std::vector<int64_t> dilations, OpSite site) {
  OpCall call(kConv2D, {input, filter}, site);
  call.attrs[kConv2DStrides] = ExpandNhwcAttr(std::move(strides));
  call.attrs[kConv2DPadding] = std::move(padding);
  call.attrs[kConv2DDilations] = ExpandNhwcAttr(std::move(dilations));
  return RunOp1(call);
}

Tensor conv2d(const Tensor& input, const Tensor& filter, std::vector<int64_t> strides,
              std::string padding, OpSite site) {
  return conv2d(input, filter, std::move(strides), std::move(padding), {1, 1, 1, 1}, site);
}

}  // namespace duet
