#include "ops/nn/conv_shape.h"

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "ops/attr_value.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/window_shape.h"

namespace duet {
namespace {

absl::string_view OpOf(ConvKind kind) {
  return kind == ConvKind::kConv2D ? "Conv2D" : "DepthwiseConv2dNative";
}

absl::string_view FilterDims(ConvKind kind) {
  return kind == ConvKind::kConv2D ? "height, width, in_channels, out_channels"
                                   : "height, width, in_channels, channel_multiplier";
}

bool Known(const Shape& s, int d) { return !s.unknown_rank() && s[d] >= 0; }

// The forward op's output channels for `filter`: dim 3, or dims 2 * 3 for depthwise.
int64_t OutChannels(const Shape& filter, ConvKind kind) {
  if (kind == ConvKind::kConv2D) return Known(filter, 3) ? filter[3] : Shape::kUnknownDim;
  return Known(filter, 2) && Known(filter, 3) ? filter[2] * filter[3] : Shape::kUnknownDim;
}

absl::Status CheckRank4(const Shape& s, absl::string_view name, absl::string_view dims) {
  if (s.unknown_rank() || s.rank() == 4) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(name, " must be 4-D (", dims, "), got shape ", s.str()));
}

// Checks the call's strides and dilations and reads its window attrs (through `keys`) and the
// spatial size of `filter` (rank 4 or unknown) into `spec` (an unknown filter size reads as 1).
absl::Status ReadWindow(const ShapeContext& ctx, const ConvWindowKeys& keys, const Shape& filter,
                        WindowSpec& spec) {
  const std::vector<int64_t>& strides = ctx.attr(keys.strides);
  const std::vector<int64_t>& dilations = ctx.attr(keys.dilations);
  DUET_RETURN_IF_ERROR(CheckNhwcAttr("strides", strides));
  DUET_RETURN_IF_ERROR(CheckNhwcAttr("dilations", dilations));
  spec.padding = ctx.attr(keys.padding);
  if (keys.explicit_paddings != nullptr) {
    DUET_RETURN_IF_ERROR(SetExplicitPaddings(ctx.attr(*keys.explicit_paddings), spec));
  }
  for (int d = 0; d < 2; ++d) {
    spec.window[d] = Known(filter, d) ? filter[d] : 1;
    spec.stride[d] = strides[1 + d];
    spec.dilation[d] = dilations[1 + d];
  }
  return absl::OkStatus();
}

// `input` with its spatial dims unknown when the filter size is: the output size is unknown too.
Shape SpatialInput(const Shape& input, const Shape& filter) {
  Shape in = input;
  if (!in.unknown_rank() && (!Known(filter, 0) || !Known(filter, 1))) {
    in.set_dim(1, Shape::kUnknownDim);
    in.set_dim(2, Shape::kUnknownDim);
  }
  return in;
}

// The shape a 1-D int32 size operand (input_sizes, filter_sizes) describes: rank 4, dims unknown
// where its value is unknown (graph mode).
absl::StatusOr<Shape> SizesOperand(const ShapeContext& ctx, int i, absl::string_view name,
                                   absl::string_view dims) {
  const Shape& s = ctx.input_shape(i);
  if (!s.unknown_rank() && (s.rank() != 1 || (s[0] >= 0 && s[0] != 4))) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be a 1-D tensor of 4 values (", dims, "), got shape ", s.str()));
  }
  const std::optional<std::vector<int64_t>> values = ctx.input_ints(i);
  if (!values) return Shape::Unknown(4);
  for (int64_t v : *values) {
    if (v < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " must be non-negative (", dims, "), got ", AttrValueString(*values)));
    }
  }
  return Shape(absl::MakeConstSpan(*values));
}

// Checks that `out_backprop` has the shape the forward `kind` op gives for `input` and `filter`
// under the call's attrs (the kernels index out_backprop by that geometry). `input_name` /
// `filter_name` say where the two shapes came from, for the error messages.
absl::Status CheckConvShapes(const ShapeContext& ctx, ConvKind kind, const Shape& input,
                             absl::string_view input_name, const Shape& filter,
                             absl::string_view filter_name, const Shape& out_backprop) {
  WindowSpec spec;
  DUET_RETURN_IF_ERROR(ReadWindow(ctx, ConvWindowKeysOf(kind), filter, spec));
  DUET_RETURN_IF_ERROR(
      CheckRank4(out_backprop, "out_backprop", "batch, height, width, out_channels"));
  if ((Known(filter, 0) && filter[0] == 0) || (Known(filter, 1) && filter[1] == 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "filter height and width must be at least 1, got ", filter_name, " ", filter.str()));
  }
  if (Known(input, 3) && Known(filter, 2) && input[3] != filter[2]) {
    return absl::InvalidArgumentError(absl::StrCat(input_name, " ", input.str(), " has ", input[3],
                                                   " channels but ", filter_name, " ", filter.str(),
                                                   " expects ", filter[2]));
  }
  absl::StatusOr<Shape> expected =
      NhwcWindowOutputShape(SpatialInput(input, filter), spec, OutChannels(filter, kind));
  if (!expected.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(expected.status().message(), " (", input_name,
                                                   " ", input.str(), ", ", filter_name, " ",
                                                   filter.str(), ")"));
  }
  if (!expected->IsCompatibleWith(out_backprop)) {
    const ConvWindowKeys& keys = ConvWindowKeysOf(kind);
    return absl::InvalidArgumentError(
        absl::StrCat("out_backprop shape ", out_backprop.str(), " does not match the ", OpOf(kind),
                     " output shape ", expected->str(), " of ", input_name, " ", input.str(),
                     " and ", filter_name, " ", filter.str(), " with strides ",
                     AttrValueString(ctx.attr(keys.strides)), ", dilations ",
                     AttrValueString(ctx.attr(keys.dilations)), " and ", spec.padding, " padding"));
  }
  return absl::OkStatus();
}

}  // namespace

OpDefBuilder& DeclareConvAttrs(OpDefBuilder& builder) {
  return builder.TypeAttr(ConvAttrs::kT, {kFloat32, kFloat64, kBFloat16})
      .IntListAttr(ConvAttrs::kStrides)
      .BoolAttr(ConvAttrs::kUseCudnnOnGpu, true)
      .StringAttr(ConvAttrs::kPadding, {}, {"SAME", "VALID", "EXPLICIT"})
      .IntListAttr(ConvAttrs::kExplicitPaddings, std::vector<int64_t>{})
      .StringAttr(ConvAttrs::kDataFormat, "NHWC", {"NHWC"})
      .IntListAttr(ConvAttrs::kDilations, std::vector<int64_t>{1, 1, 1, 1});
}

OpDefBuilder& DeclareDepthwiseConvAttrs(OpDefBuilder& builder) {
  return builder.TypeAttr(DepthwiseConvAttrs::kT, {kFloat32, kFloat64, kBFloat16})
      .IntListAttr(DepthwiseConvAttrs::kStrides)
      .StringAttr(DepthwiseConvAttrs::kPadding, {}, {"SAME", "VALID", "EXPLICIT"})
      .IntListAttr(DepthwiseConvAttrs::kExplicitPaddings, std::vector<int64_t>{})
      .StringAttr(DepthwiseConvAttrs::kDataFormat, "NHWC", {"NHWC"})
      .IntListAttr(DepthwiseConvAttrs::kDilations, std::vector<int64_t>{1, 1, 1, 1});
}

absl::StatusOr<Shape> ConvOutputShape(const ShapeContext& ctx, ConvKind kind) {
  return ConvOutputShape(ctx, kind, ConvWindowKeysOf(kind));
}

absl::StatusOr<Shape> ConvOutputShape(const ShapeContext& ctx, ConvKind kind,
                                      const ConvWindowKeys& keys) {
  const Shape& input = ctx.input_shape(0);
  const Shape& filter = ctx.input_shape(1);
  if (!filter.unknown_rank() && filter.rank() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("filter must be 4-D (", FilterDims(kind), "), got shape ", filter.str()));
  }
  if (!input.unknown_rank() && input.rank() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input must be 4-D (batch, height, width, channels), got shape ", input.str()));
  }
  WindowSpec spec;
  DUET_RETURN_IF_ERROR(ReadWindow(ctx, keys, filter, spec));
  if (!filter.unknown_rank() && (filter[0] == 0 || filter[1] == 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "filter height and width must be at least 1, got filter shape ", filter.str()));
  }
  if (Known(input, 3) && Known(filter, 2) && input[3] != filter[2]) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input has ", input[3], " channels but the filter expects ", filter[2],
        " (in_channels, dim 2 of filter shape ", filter.str(), "; input shape ", input.str(), ")"));
  }
  return NhwcWindowOutputShape(SpatialInput(input, filter), spec, OutChannels(filter, kind));
}

absl::StatusOr<Shape> Conv2DOutputShape(const ShapeContext& ctx) {
  return ConvOutputShape(ctx, ConvKind::kConv2D);
}

absl::Status ConvBackpropInputShape(ShapeContext& ctx, ConvKind kind) {
  DUET_ASSIGN_OR_RETURN(Shape input,
                        SizesOperand(ctx, 0, "input_sizes", "batch, height, width, in_channels"));
  const Shape& filter = ctx.input_shape(1);
  DUET_RETURN_IF_ERROR(CheckRank4(filter, "filter", FilterDims(kind)));
  DUET_RETURN_IF_ERROR(
      CheckConvShapes(ctx, kind, input, "input_sizes", filter, "filter shape", ctx.input_shape(2)));
  ctx.set_output(0, ctx.output(0).dtype, std::move(input));
  return absl::OkStatus();
}

absl::Status ConvBackpropFilterShape(ShapeContext& ctx, ConvKind kind) {
  DUET_ASSIGN_OR_RETURN(Shape filter, SizesOperand(ctx, 1, "filter_sizes", FilterDims(kind)));
  const Shape& input = ctx.input_shape(0);
  DUET_RETURN_IF_ERROR(CheckRank4(input, "input", "batch, height, width, in_channels"));
  DUET_RETURN_IF_ERROR(
      CheckConvShapes(ctx, kind, input, "input shape", filter, "filter_sizes", ctx.input_shape(2)));
  ctx.set_output(0, ctx.output(0).dtype, std::move(filter));
  return absl::OkStatus();
}

Tensor ConvSizesTensor(const Shape& shape, absl::string_view name) {
  if (!shape.is_fully_defined()) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat(name, " must be fully defined, got ", shape.str())));
  }
  std::vector<int32_t> dims(shape.dims().begin(), shape.dims().end());
  return from_vector(dims, Shape{static_cast<int64_t>(dims.size())});
}

}  // namespace duet
