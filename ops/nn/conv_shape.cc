#include "ops/nn/conv_shape.h"

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/window_shape.h"

namespace duet {

OpDefBuilder& DeclareConvAttrs(OpDefBuilder& builder) {
  return builder.TypeAttr(ConvAttrs::kT, {kFloat32, kFloat64, kBFloat16})
      .IntListAttr(ConvAttrs::kStrides)
      .BoolAttr(ConvAttrs::kUseCudnnOnGpu, true)
      .StringAttr(ConvAttrs::kPadding, {}, {"SAME", "VALID", "EXPLICIT"})
      .IntListAttr(ConvAttrs::kExplicitPaddings, std::vector<int64_t>{})
      .StringAttr(ConvAttrs::kDataFormat, "NHWC", {"NHWC"})
      .IntListAttr(ConvAttrs::kDilations, std::vector<int64_t>{1, 1, 1, 1});
}

absl::StatusOr<Shape> Conv2DOutputShape(const ShapeContext& ctx) {
  const Shape& input = ctx.input_shape(0);
  const Shape& filter = ctx.input_shape(1);
  const std::vector<int64_t>& strides = ctx.attr(ConvAttrs::kStrides);
  const std::vector<int64_t>& dilations = ctx.attr(ConvAttrs::kDilations);
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
  spec.padding = ctx.attr(ConvAttrs::kPadding);
  DUET_RETURN_IF_ERROR(SetExplicitPaddings(ctx.attr(ConvAttrs::kExplicitPaddings), spec));
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
  return NhwcWindowOutputShape(in, spec, filter.unknown_rank() ? -1 : filter[3]);
}

}  // namespace duet
