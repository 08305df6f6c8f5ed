// Conv2D: 2-D convolution of NHWC input with an HWIO filter.
#include "absl/strings/str_cat.h"
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
  const Shape& input = ctx.input_shape(0);
  const Shape& filter = ctx.input_shape(1);
  const auto& strides = ctx.attr<std::vector<int64_t>>(kConv2DStrides);
  const auto& dilations = ctx.attr<std::vector<int64_t>>(kConv2DDilations);
  DUET_RETURN_IF_ERROR(CheckNhwcAttr("strides", strides));
  DUET_RETURN_IF_ERROR(CheckNhwcAttr("dilations", dilations));
  if (!filter.unknown_rank() && filter.rank() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "filter must be 4-D (height, width, in_channels, out_channels), got shape ", filter.str()));
  }
  if (!input.unknown_rank() && input.rank() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input must be 4-D (batch, height, width, channels), got shape ", input.str()));
  }
  if (!filter.unknown_rank() && (filter[0] == 0 || filter[1] == 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "filter height and width must be at least 1, got filter shape ", filter.str()));
  }
  const bool known = !input.unknown_rank() && !filter.unknown_rank();
  if (known && input[3] >= 0 && filter[2] >= 0 && input[3] != filter[2]) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input has ", input[3], " channels but the filter expects ", filter[2],
        " (in_channels, dim 2 of filter shape ", filter.str(), "; input shape ", input.str(), ")"));
  }
  WindowSpec spec;
  spec.padding = ctx.attr<std::string>(kConv2DPadding);
  DUET_RETURN_IF_ERROR(
      SetExplicitPaddings(ctx.attr<std::vector<int64_t>>(kConv2DExplicitPaddings), spec));
  for (int d = 0; d < 2; ++d) {
    spec.window[d] = filter.unknown_rank() ? 1 : filter[d];
    spec.stride[d] = strides[1 + d];
    spec.dilation[d] = dilations[1 + d];
  }
  // An unknown filter size leaves the spatial output size unknown.
  Shape in = input;
  if (!in.unknown_rank() && (filter.unknown_rank() || filter[0] < 0 || filter[1] < 0)) {
    in.set_dim(1, Shape::kUnknownDim);
    in.set_dim(2, Shape::kUnknownDim);
  }
  DUET_ASSIGN_OR_RETURN(Shape out,
                        NhwcWindowOutputShape(in, spec, filter.unknown_rank() ? -1 : filter[3]));
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
