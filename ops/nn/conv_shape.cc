#include "ops/nn/conv_shape.h"

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "ops/attr_value.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/window_shape.h"

namespace duet {
namespace {

absl::string_view FilterDims(ConvKind kind) {
  switch (kind) {
    case ConvKind::kConv2D:
      return "height, width, in_channels, out_channels";
    case ConvKind::kDepthwise:
      return "height, width, in_channels, channel_multiplier";
    case ConvKind::kConv3D:
      break;
  }
  return "depth, height, width, in_channels, out_channels";
}

bool Known(const Shape& s, int d) { return !s.unknown_rank() && s[d] >= 0; }

// The forward op's output channels for `filter`: its last dim, or dims 2 * 3 for depthwise.
int64_t OutChannels(const Shape& filter, ConvKind kind) {
  const int last = ConvRank(kind) + 1;
  if (kind != ConvKind::kDepthwise) return Known(filter, last) ? filter[last] : Shape::kUnknownDim;
  return Known(filter, 2) && Known(filter, 3) ? filter[2] * filter[3] : Shape::kUnknownDim;
}

// Note [Grouped Conv2D]
// As TensorFlow's, Conv2D (and its backprops and _FusedConv2D) convolves in groups when the
// input has a multiple of the filter's in_channels: groups = input channels / filter in_channels,
// output channel k reads input group k / (out_channels / groups), and out_channels must be a
// multiple of groups (the filter layout is Note [Grouped convolution weights] in
// kernels/cpu/nn/conv_dnnl.cc). Depthwise and 3-D convolutions match channels exactly, as
// TensorFlow's CPU kernels do.
//
// Checks that `input` (described by `input_name`) fits the channels of `filter`: equal in_channels,
// or for Conv2D (Note [Grouped Conv2D]) a multiple of them with out_channels a multiple of the
// groups.
absl::Status CheckChannels(ConvKind kind, const Shape& input, absl::string_view input_name,
                           const Shape& filter, absl::string_view filter_name) {
  const int rank = ConvRank(kind);
  if (!Known(input, rank + 1) || !Known(filter, rank)) return absl::OkStatus();
  const int64_t in = input[rank + 1], filter_in = filter[rank];
  if (in == filter_in) return absl::OkStatus();
  if (kind != ConvKind::kConv2D || filter_in == 0 || in % filter_in != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        input_name, " ", input.str(), " has ", in, " channels but ", filter_name, " ", filter.str(),
        " expects ",
        kind == ConvKind::kConv2D ? absl::StrCat("a multiple of ", filter_in, " (in_channels)")
                                  : absl::StrCat(filter_in)));
  }
  const int64_t groups = in / filter_in;
  if (Known(filter, rank + 1) && filter[rank + 1] % groups != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        input_name, " ", input.str(), " has ", in, " channels: ", groups, " groups of ",
        filter_name, " ", filter.str(), "'s ", filter_in, " in_channels, but its ",
        filter[rank + 1], " out_channels are not a multiple of ", groups));
  }
  return absl::OkStatus();
}

// Checks that `s` (of operand `name`, whose dims are `dims`) has rank `rank` or an unknown rank.
absl::Status CheckRank(const Shape& s, int rank, absl::string_view name, absl::string_view dims) {
  if (s.unknown_rank() || s.rank() == rank) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(name, " must be ", rank, "-D (", dims, "), got shape ", s.str()));
}

// Checks the call's strides and dilations and reads its window attrs (through `keys`) and the
// spatial size of `filter` (of the `kind` rank or unknown) into `spec` (an unknown filter size
// reads as 1).
absl::Status ReadWindow(const ShapeContext& ctx, ConvKind kind, const ConvWindowKeys& keys,
                        const Shape& filter, WindowSpec& spec) {
  spec.rank = ConvRank(kind);
  const std::vector<int64_t>& strides = ctx.attr(keys.strides);
  const std::vector<int64_t>& dilations = ctx.attr(keys.dilations);
  DUET_RETURN_IF_ERROR(CheckNhwcAttr("strides", strides, spec.rank));
  DUET_RETURN_IF_ERROR(CheckNhwcAttr("dilations", dilations, spec.rank));
  spec.padding = ctx.attr(keys.padding);
  if (keys.explicit_paddings != nullptr) {
    DUET_RETURN_IF_ERROR(SetExplicitPaddings(ctx.attr(*keys.explicit_paddings), spec));
  }
  for (int d = 0; d < spec.rank; ++d) {
    spec.window[d] = Known(filter, d) ? filter[d] : 1;
    spec.stride[d] = strides[1 + d];
    spec.dilation[d] = dilations[1 + d];
  }
  return absl::OkStatus();
}

// `input` with its spatial dims unknown when the filter size is: the output size is unknown too.
Shape SpatialInput(const Shape& input, const Shape& filter, int rank) {
  Shape in = input;
  if (in.unknown_rank()) return in;
  bool known = true;
  for (int d = 0; d < rank; ++d) known = known && Known(filter, d);
  if (!known) {
    for (int d = 0; d < rank; ++d) in.set_dim(1 + d, Shape::kUnknownDim);
  }
  return in;
}

// Checks that no spatial dim of `filter` (described by `filter_name`) is 0.
absl::Status CheckFilterWindow(const Shape& filter, int rank, absl::string_view filter_name) {
  for (int d = 0; d < rank; ++d) {
    if (Known(filter, d) && filter[d] == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(rank == 2 ? "filter height and width" : "filter depth, height and width",
                       " must be at least 1, got ", filter_name, " ", filter.str()));
    }
  }
  return absl::OkStatus();
}

// The shape a 1-D int32 size operand (input_sizes, filter_sizes) describes: rank `rank`, dims
// unknown where its value is unknown (graph mode).
absl::StatusOr<Shape> SizesOperand(const ShapeContext& ctx, int i, int rank, absl::string_view name,
                                   absl::string_view dims) {
  const Shape& s = ctx.input_shape(i);
  if (!s.unknown_rank() && (s.rank() != 1 || (s[0] >= 0 && s[0] != rank))) {
    return absl::InvalidArgumentError(absl::StrCat(name, " must be a 1-D tensor of ", rank,
                                                   " values (", dims, "), got shape ", s.str()));
  }
  const std::optional<std::vector<int64_t>> values = ctx.input_ints(i);
  if (!values) return Shape::Unknown(rank);
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
  DUET_RETURN_IF_ERROR(ReadWindow(ctx, kind, ConvWindowKeysOf(kind), filter, spec));
  const int rank = spec.rank;
  DUET_RETURN_IF_ERROR(CheckRank(out_backprop, rank + 2, "out_backprop", NhwcDimNames(rank)));
  DUET_RETURN_IF_ERROR(CheckFilterWindow(filter, rank, filter_name));
  DUET_RETURN_IF_ERROR(CheckChannels(kind, input, input_name, filter, filter_name));
  absl::StatusOr<Shape> expected =
      NhwcWindowOutputShape(SpatialInput(input, filter, rank), spec, OutChannels(filter, kind));
  if (!expected.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(expected.status().message(), " (", input_name,
                                                   " ", input.str(), ", ", filter_name, " ",
                                                   filter.str(), ")"));
  }
  if (!expected->IsCompatibleWith(out_backprop)) {
    const ConvWindowKeys& keys = ConvWindowKeysOf(kind);
    return absl::InvalidArgumentError(
        absl::StrCat("out_backprop shape ", out_backprop.str(), " does not match the ",
                     ConvOpName(kind), " output shape ", expected->str(), " of ", input_name, " ",
                     input.str(), " and ", filter_name, " ", filter.str(), " with strides ",
                     AttrValueString(ctx.attr(keys.strides)), ", dilations ",
                     AttrValueString(ctx.attr(keys.dilations)), " and ", spec.padding, " padding"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::string_view ConvOpName(ConvKind kind) {
  switch (kind) {
    case ConvKind::kConv2D:
      return "Conv2D";
    case ConvKind::kDepthwise:
      return "DepthwiseConv2dNative";
    case ConvKind::kConv3D:
      break;
  }
  return "Conv3D";
}

OpDefBuilder& DeclareConvAttrs(OpDefBuilder& builder, std::vector<std::string> formats) {
  return builder.TypeAttr(ConvAttrs::kT, {kFloat32, kFloat64, kBFloat16})
      .IntListAttr(ConvAttrs::kStrides)
      .BoolAttr(ConvAttrs::kUseCudnnOnGpu, true)
      .StringAttr(ConvAttrs::kPadding, {}, {"SAME", "VALID", "EXPLICIT"})
      .IntListAttr(ConvAttrs::kExplicitPaddings, std::vector<int64_t>{})
      .StringAttr(ConvAttrs::kDataFormat, "NHWC", std::move(formats))
      .IntListAttr(ConvAttrs::kDilations, std::vector<int64_t>{1, 1, 1, 1});
}

OpDefBuilder& DeclareConv3DAttrs(OpDefBuilder& builder) {
  return builder.TypeAttr(Conv3DAttrs::kT, {kFloat32, kFloat64, kBFloat16})
      .IntListAttr(Conv3DAttrs::kStrides)
      .StringAttr(Conv3DAttrs::kPadding, {}, {"SAME", "VALID"})
      .StringAttr(Conv3DAttrs::kDataFormat, "NDHWC", {"NDHWC"})
      .IntListAttr(Conv3DAttrs::kDilations, std::vector<int64_t>{1, 1, 1, 1, 1});
}

OpDefBuilder& DeclareDepthwiseConvAttrs(OpDefBuilder& builder) {
  return builder.TypeAttr(DepthwiseConvAttrs::kT, {kFloat32, kFloat64, kBFloat16})
      .IntListAttr(DepthwiseConvAttrs::kStrides)
      .StringAttr(DepthwiseConvAttrs::kPadding, {}, {"SAME", "VALID", "EXPLICIT"})
      .IntListAttr(DepthwiseConvAttrs::kExplicitPaddings, std::vector<int64_t>{})
      .StringAttr(DepthwiseConvAttrs::kDataFormat, "NHWC", {"NHWC", "NCHW"})
      .IntListAttr(DepthwiseConvAttrs::kDilations, std::vector<int64_t>{1, 1, 1, 1});
}

absl::StatusOr<Shape> ConvOutputShape(const ShapeContext& ctx, ConvKind kind) {
  return ConvOutputShape(ctx, kind, ConvWindowKeysOf(kind));
}

absl::StatusOr<Shape> ConvOutputShape(const ShapeContext& ctx, ConvKind kind,
                                      const ConvWindowKeys& keys) {
  const Shape& input = ctx.input_shape(0);
  const Shape& filter = ctx.input_shape(1);
  const int rank = ConvRank(kind);
  DUET_RETURN_IF_ERROR(CheckRank(filter, rank + 2, "filter", FilterDims(kind)));
  DUET_RETURN_IF_ERROR(CheckRank(input, rank + 2, "input", NhwcDimNames(rank)));
  WindowSpec spec;
  DUET_RETURN_IF_ERROR(ReadWindow(ctx, kind, keys, filter, spec));
  DUET_RETURN_IF_ERROR(CheckFilterWindow(filter, rank, "filter shape"));
  DUET_RETURN_IF_ERROR(CheckChannels(kind, input, "input", filter, "filter"));
  return NhwcWindowOutputShape(SpatialInput(input, filter, rank), spec, OutChannels(filter, kind));
}

absl::StatusOr<Shape> Conv2DOutputShape(const ShapeContext& ctx) {
  return ConvOutputShape(ctx, ConvKind::kConv2D);
}

absl::Status ConvBackpropInputShape(ShapeContext& ctx, ConvKind kind) {
  const int rank = ConvRank(kind) + 2;
  DUET_ASSIGN_OR_RETURN(Shape input,
                        SizesOperand(ctx, 0, rank, "input_sizes", NhwcDimNames(ConvRank(kind))));
  const Shape& filter = ctx.input_shape(1);
  DUET_RETURN_IF_ERROR(CheckRank(filter, rank, "filter", FilterDims(kind)));
  DUET_RETURN_IF_ERROR(
      CheckConvShapes(ctx, kind, input, "input_sizes", filter, "filter shape", ctx.input_shape(2)));
  ctx.set_output(0, ctx.output(0).dtype, std::move(input));
  return absl::OkStatus();
}

absl::Status ConvBackpropFilterShape(ShapeContext& ctx, ConvKind kind) {
  const int rank = ConvRank(kind) + 2;
  DUET_ASSIGN_OR_RETURN(Shape filter, SizesOperand(ctx, 1, rank, "filter_sizes", FilterDims(kind)));
  const Shape& input = ctx.input_shape(0);
  DUET_RETURN_IF_ERROR(CheckRank(input, rank, "input", NhwcDimNames(ConvRank(kind))));
  DUET_RETURN_IF_ERROR(
      CheckConvShapes(ctx, kind, input, "input shape", filter, "filter_sizes", ctx.input_shape(2)));
  ctx.set_output(0, ctx.output(0).dtype, std::move(filter));
  return absl::OkStatus();
}

void SetConvWindowAttrs(OpCall& call, ConvKind kind, std::vector<int64_t> strides,
                        std::string padding, std::vector<int64_t> dilations,
                        std::vector<int64_t> explicit_paddings) {
  const ConvWindowKeys& keys = ConvWindowKeysOf(kind);
  call.set(keys.strides, ExpandNhwcAttr(std::move(strides), ConvRank(kind)));
  call.set(keys.padding, std::move(padding));
  if (keys.explicit_paddings != nullptr) {
    call.set(*keys.explicit_paddings, std::move(explicit_paddings));
  }
  call.set(keys.dilations, ExpandNhwcAttr(std::move(dilations), ConvRank(kind)));
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
