// MaxPoolGrad, AvgPoolGrad and MaxPoolGradGrad: the gradients of the pooling ops (and of
// MaxPoolGrad's grad input).
#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "ops/attr_value.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/nn_backprop_ops.h"
#include "ops/nn/window_shape.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

const std::vector<DType> kPoolTypes = {kFloat32, kFloat64, kBFloat16};

// The MaxPool/AvgPool output shape of `input` under the call's PoolAttrs (`spec` holds any
// explicit paddings), with the checks the forward shape functions make.
absl::StatusOr<Shape> PoolOutputShape(const ShapeContext& ctx, const Shape& input,
                                      absl::string_view input_name, WindowSpec& spec) {
  DUET_RETURN_IF_ERROR(SetPoolWindow(ctx, spec));
  if (!input.unknown_rank() && input.rank() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        input_name, " must be 4-D (batch, height, width, channels), got shape ", input.str()));
  }
  absl::StatusOr<Shape> out =
      NhwcWindowOutputShape(input, spec, input.unknown_rank() ? -1 : input[3]);
  if (!out.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(out.status().message(), " (", input_name, " ", input.str(), ")"));
  }
  return out;
}

// Checks that `shape` (of operand `name`) is `expected`, the pooling output shape of `input`.
absl::Status CheckPooledShape(const Shape& shape, absl::string_view name, const Shape& expected,
                              absl::string_view input_name, const Shape& input) {
  if (shape.IsCompatibleWith(expected)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(name, " shape ", shape.str(), " does not match the pooling output shape ",
                   expected.str(), " of ", input_name, " ", input.str()));
}

absl::Status MaxPoolGradShape(ShapeContext& ctx) {
  WindowSpec spec;
  spec.padding = ctx.attr(PoolAttrs::kPadding);  // SetExplicitPaddings checks it
  DUET_RETURN_IF_ERROR(SetExplicitPaddings(ctx.attr(MaxPoolAttrs::kExplicitPaddings), spec));
  const Shape& input = ctx.input_shape(0);
  DUET_ASSIGN_OR_RETURN(const Shape pooled, PoolOutputShape(ctx, input, "orig_input", spec));
  DUET_RETURN_IF_ERROR(
      CheckPooledShape(ctx.input_shape(1), "orig_output", pooled, "orig_input", input));
  DUET_RETURN_IF_ERROR(CheckPooledShape(ctx.input_shape(2), "grad", pooled, "orig_input", input));
  ctx.set_output(0, ctx.output(0).dtype, input.unknown_rank() ? Shape::Unknown(4) : input);
  return absl::OkStatus();
}

absl::Status AvgPoolGradShape(ShapeContext& ctx) {
  const Shape& sizes = ctx.input_shape(0);
  if (!sizes.unknown_rank() && (sizes.rank() != 1 || (sizes[0] >= 0 && sizes[0] != 4))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "orig_input_shape must be a 1-D tensor of 4 values (batch, height, width, channels), "
        "got shape ",
        sizes.str()));
  }
  Shape input = Shape::Unknown(4);
  if (const std::optional<std::vector<int64_t>> values = ctx.input_ints(0)) {
    for (int64_t v : *values) {
      if (v < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("orig_input_shape must be non-negative, got ", AttrValueString(*values)));
      }
    }
    input = Shape(absl::MakeConstSpan(*values));
  }
  WindowSpec spec;
  DUET_ASSIGN_OR_RETURN(const Shape pooled, PoolOutputShape(ctx, input, "orig_input_shape", spec));
  DUET_RETURN_IF_ERROR(
      CheckPooledShape(ctx.input_shape(1), "grad", pooled, "orig_input_shape", input));
  ctx.set_output(0, ctx.output(0).dtype, std::move(input));
  return absl::OkStatus();
}

absl::Status MaxPoolGradGradShape(ShapeContext& ctx) {
  WindowSpec spec;
  const Shape& input = ctx.input_shape(0);
  DUET_ASSIGN_OR_RETURN(const Shape pooled, PoolOutputShape(ctx, input, "orig_input", spec));
  DUET_RETURN_IF_ERROR(
      CheckPooledShape(ctx.input_shape(1), "orig_output", pooled, "orig_input", input));
  if (!ctx.input_shape(2).IsCompatibleWith(input)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "grad shape ", ctx.input_shape(2).str(), " must equal the orig_input shape ", input.str()));
  }
  ctx.set_output(0, ctx.output(0).dtype, pooled);
  return absl::OkStatus();
}

const OpDef* const kMaxPoolGrad =
    OpDefBuilder("MaxPoolGrad")
        .Input("orig_input", "T")
        .Input("orig_output", "T")
        .Input("grad", "T")
        .Output("output", "T")
        .IntListAttr(PoolAttrs::kKsize)
        .IntListAttr(PoolAttrs::kStrides)
        .StringAttr(PoolAttrs::kPadding, {}, {"SAME", "VALID", "EXPLICIT"})
        .IntListAttr(MaxPoolAttrs::kExplicitPaddings, std::vector<int64_t>{})
        .StringAttr(MaxPoolAttrs::kDataFormat, "NHWC", {"NHWC"})
        .TypeAttr(MaxPoolAttrs::kT, kPoolTypes, kFloat32)
        .Doc(
            "The gradient of MaxPool's NHWC input: each window's grad goes to the window's first "
            "maximum (row-major) in orig_input.")
        .SetShapeFn(MaxPoolGradShape)
        .Register();

const OpDef* const kAvgPoolGrad =
    OpDefBuilder("AvgPoolGrad")
        .Input("orig_input_shape", kInt32)
        .HostInputs({"orig_input_shape"})
        .Input("grad", "T")
        .Output("output", "T")
        .IntListAttr(PoolAttrs::kKsize)
        .IntListAttr(PoolAttrs::kStrides)
        .StringAttr(PoolAttrs::kPadding, {}, {"SAME", "VALID"})
        .StringAttr(UnpaddedPoolAttrs::kDataFormat, "NHWC", {"NHWC"})
        .TypeAttr(UnpaddedPoolAttrs::kT, kPoolTypes)
        .Doc(
            "The gradient of AvgPool's NHWC input (of shape orig_input_shape): each window's grad "
            "is spread evenly over the window's input cells (padding left out).")
        .SetShapeFn(AvgPoolGradShape)
        .Register();

const OpDef* const kMaxPoolGradGrad =
    OpDefBuilder("MaxPoolGradGrad")
        .Input("orig_input", "T")
        .Input("orig_output", "T")
        .Input("grad", "T")
        .Output("output", "T")
        .IntListAttr(PoolAttrs::kKsize)
        .IntListAttr(PoolAttrs::kStrides)
        .StringAttr(PoolAttrs::kPadding, {}, {"SAME", "VALID"})
        .StringAttr(UnpaddedPoolAttrs::kDataFormat, "NHWC", {"NHWC"})
        .TypeAttr(UnpaddedPoolAttrs::kT, kPoolTypes)
        .Doc(
            "The gradient of MaxPoolGrad's grad input: for each window, grad (orig_input's shape) "
            "at the window's first maximum (row-major) in orig_input.")
        .SetShapeFn(MaxPoolGradGradShape)
        .Register();

}  // namespace

Tensor max_pool_grad(const Tensor& orig_input, const Tensor& orig_output, const Tensor& grad,
                     std::vector<int64_t> ksize, std::vector<int64_t> strides, std::string padding,
                     std::vector<int64_t> explicit_paddings, OpSite site) {
  OpCall call(kMaxPoolGrad, {orig_input, orig_output, grad}, site);
  SetPoolWindowAttrs(call, std::move(ksize), std::move(strides), std::move(padding));
  call.set(MaxPoolAttrs::kExplicitPaddings, std::move(explicit_paddings));
  return RunSingleOutputOp(call);
}

Tensor max_pool_grad(const Tensor& orig_input, const Tensor& orig_output, const Tensor& grad,
                     std::vector<int64_t> ksize, std::vector<int64_t> strides, std::string padding,
                     OpSite site) {
  return max_pool_grad(orig_input, orig_output, grad, std::move(ksize), std::move(strides),
                       std::move(padding), {}, site);
}

Tensor avg_pool_grad(const Shape& orig_input_shape, const Tensor& grad, std::vector<int64_t> ksize,
                     std::vector<int64_t> strides, std::string padding, OpSite site) {
  if (!orig_input_shape.is_fully_defined()) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("orig_input_shape must be fully defined, got ", orig_input_shape.str())));
  }
  const std::vector<int32_t> dims(orig_input_shape.dims().begin(), orig_input_shape.dims().end());
  OpCall call(kAvgPoolGrad, {from_vector(dims, Shape{static_cast<int64_t>(dims.size())}), grad},
              site);
  SetPoolWindowAttrs(call, std::move(ksize), std::move(strides), std::move(padding));
  return RunSingleOutputOp(call);
}

Tensor max_pool_grad_grad(const Tensor& orig_input, const Tensor& orig_output, const Tensor& grad,
                          std::vector<int64_t> ksize, std::vector<int64_t> strides,
                          std::string padding, OpSite site) {
  OpCall call(kMaxPoolGradGrad, {orig_input, orig_output, grad}, site);
  SetPoolWindowAttrs(call, std::move(ksize), std::move(strides), std::move(padding));
  return RunSingleOutputOp(call);
}

}  // namespace duet
