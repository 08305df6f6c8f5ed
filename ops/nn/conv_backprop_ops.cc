// Conv2DBackpropInput and Conv2DBackpropFilter: the gradients of Conv2D's input and filter.
#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "ops/attr_value.h"
#include "ops/nn/conv_shape.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/nn_backprop_ops.h"
#include "ops/nn/window_shape.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

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

absl::Status CheckRank4(const Shape& s, absl::string_view name, absl::string_view dims) {
  if (s.unknown_rank() || s.rank() == 4) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(name, " must be 4-D (", dims, "), got shape ", s.str()));
}

bool Known(const Shape& s, int d) { return !s.unknown_rank() && s[d] >= 0; }

// Checks that `out_backprop` has the shape Conv2D gives for `input` and `filter` under the call's
// attrs (the kernels index out_backprop by that geometry). `input_name`/`filter_name` say where
// the two shapes came from, for the error messages.
absl::Status CheckConvShapes(const ShapeContext& ctx, const Shape& input,
                             absl::string_view input_name, const Shape& filter,
                             absl::string_view filter_name, const Shape& out_backprop) {
  const auto& strides = ctx.attr(ConvAttrs::kStrides);
  const auto& dilations = ctx.attr(ConvAttrs::kDilations);
  DUET_RETURN_IF_ERROR(CheckNhwcAttr("strides", strides));
  DUET_RETURN_IF_ERROR(CheckNhwcAttr("dilations", dilations));
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
  WindowSpec spec;
  spec.padding = ctx.attr(ConvAttrs::kPadding);
  DUET_RETURN_IF_ERROR(SetExplicitPaddings(ctx.attr(ConvAttrs::kExplicitPaddings), spec));
  for (int d = 0; d < 2; ++d) {
    spec.window[d] = Known(filter, d) ? filter[d] : 1;
    spec.stride[d] = strides[1 + d];
    spec.dilation[d] = dilations[1 + d];
  }
  // An unknown filter size leaves the spatial output size unknown.
  Shape in = input;
  if (!in.unknown_rank() && (!Known(filter, 0) || !Known(filter, 1))) {
    in.set_dim(1, Shape::kUnknownDim);
    in.set_dim(2, Shape::kUnknownDim);
  }
  absl::StatusOr<Shape> expected =
      NhwcWindowOutputShape(in, spec, Known(filter, 3) ? filter[3] : Shape::kUnknownDim);
  if (!expected.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(expected.status().message(), " (", input_name,
                                                   " ", input.str(), ", ", filter_name, " ",
                                                   filter.str(), ")"));
  }
  if (!expected->IsCompatibleWith(out_backprop)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "out_backprop shape ", out_backprop.str(), " does not match the Conv2D output shape ",
        expected->str(), " of ", input_name, " ", input.str(), " and ", filter_name, " ",
        filter.str(), " with strides ", AttrValueString(strides), ", dilations ",
        AttrValueString(dilations), " and ", spec.padding, " padding"));
  }
  return absl::OkStatus();
}

absl::Status Conv2DBackpropInputShape(ShapeContext& ctx) {
  DUET_ASSIGN_OR_RETURN(Shape input,
                        SizesOperand(ctx, 0, "input_sizes", "batch, height, width, in_channels"));
  const Shape& filter = ctx.input_shape(1);
  DUET_RETURN_IF_ERROR(CheckRank4(filter, "filter", "height, width, in_channels, out_channels"));
  DUET_RETURN_IF_ERROR(
      CheckConvShapes(ctx, input, "input_sizes", filter, "filter shape", ctx.input_shape(2)));
  ctx.set_output(0, ctx.output(0).dtype, std::move(input));
  return absl::OkStatus();
}

absl::Status Conv2DBackpropFilterShape(ShapeContext& ctx) {
  DUET_ASSIGN_OR_RETURN(Shape filter, SizesOperand(ctx, 1, "filter_sizes",
                                                   "height, width, in_channels, out_channels"));
  const Shape& input = ctx.input_shape(0);
  DUET_RETURN_IF_ERROR(CheckRank4(input, "input", "batch, height, width, in_channels"));
  DUET_RETURN_IF_ERROR(
      CheckConvShapes(ctx, input, "input shape", filter, "filter_sizes", ctx.input_shape(2)));
  ctx.set_output(0, ctx.output(0).dtype, std::move(filter));
  return absl::OkStatus();
}

const OpDef* const kConv2DBackpropInput =
    DeclareConvAttrs(OpDefBuilder("Conv2DBackpropInput")
                         .Input("input_sizes", kInt32)
                         .HostInputs({"input_sizes"})
                         .Input("filter", "T")
                         .Input("out_backprop", "T")
                         .Output("output", "T"))
        .Doc(
            "The gradient of Conv2D's NHWC input (of shape input_sizes) from its filter and the "
            "gradient of its output.")
        .SetShapeFn(Conv2DBackpropInputShape)
        .Register();

const OpDef* const kConv2DBackpropFilter =
    DeclareConvAttrs(OpDefBuilder("Conv2DBackpropFilter")
                         .Input("input", "T")
                         .Input("filter_sizes", kInt32)
                         .HostInputs({"filter_sizes"})
                         .Input("out_backprop", "T")
                         .Output("output", "T"))
        .Doc(
            "The gradient of Conv2D's HWIO filter (of shape filter_sizes) from its input and the "
            "gradient of its output.")
        .SetShapeFn(Conv2DBackpropFilterShape)
        .Register();

// A Shape operand as the int32 tensor TensorFlow's ops take.
Tensor SizesTensor(const Shape& shape, absl::string_view name) {
  if (!shape.is_fully_defined()) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat(name, " must be fully defined, got ", shape.str())));
  }
  std::vector<int32_t> dims(shape.dims().begin(), shape.dims().end());
  return from_vector(dims, Shape{static_cast<int64_t>(dims.size())});
}

void SetConvAttrs(OpCall& call, std::vector<int64_t> strides, std::string padding,
                  std::vector<int64_t> dilations, std::vector<int64_t> explicit_paddings) {
  call.set(ConvAttrs::kStrides, ExpandNhwcAttr(std::move(strides)));
  call.set(ConvAttrs::kPadding, std::move(padding));
  call.set(ConvAttrs::kExplicitPaddings, std::move(explicit_paddings));
  call.set(ConvAttrs::kDilations, ExpandNhwcAttr(std::move(dilations)));
}

}  // namespace

Tensor conv2d_backprop_input(const Shape& input_sizes, const Tensor& filter,
                             const Tensor& out_backprop, std::vector<int64_t> strides,
                             std::string padding, std::vector<int64_t> dilations,
                             std::vector<int64_t> explicit_paddings, OpSite site) {
  OpCall call(kConv2DBackpropInput, {SizesTensor(input_sizes, "input_sizes"), filter, out_backprop},
              site);
  SetConvAttrs(call, std::move(strides), std::move(padding), std::move(dilations),
               std::move(explicit_paddings));
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
              {input, SizesTensor(filter_sizes, "filter_sizes"), out_backprop}, site);
  SetConvAttrs(call, std::move(strides), std::move(padding), std::move(dilations),
               std::move(explicit_paddings));
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
  SetConvAttrs(call, std::move(strides), "EXPLICIT", std::move(dilations),
               std::move(explicit_paddings));
  return RunSingleOutputOp(call);
}

}  // namespace duet
