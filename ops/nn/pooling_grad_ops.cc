// MaxPoolGrad, AvgPoolGrad and MaxPoolGradGrad: the gradients of the pooling ops (and of
// MaxPoolGrad's grad input); MaxPool3DGrad, AvgPool3DGrad and MaxPool3DGradGrad, their NDHWC twins.
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
// TensorFlow's MaxPool3DGrad has no float64.
const std::vector<DType> kMaxPool3DGradTypes = {kFloat32, kBFloat16};

// The pooling output shape of `input` under the call's PoolAttrs (`spec` holds the spatial rank
// and any explicit paddings), with the checks the forward shape functions make.
absl::StatusOr<Shape> PoolOutputShape(const ShapeContext& ctx, const Shape& input,
                                      absl::string_view input_name, WindowSpec& spec) {
  DUET_RETURN_IF_ERROR(SetPoolWindow(ctx, spec));
  if (!input.unknown_rank() && input.rank() != spec.rank + 2) {
    return absl::InvalidArgumentError(absl::StrCat(input_name, " must be ", spec.rank + 2, "-D (",
                                                   NhwcDimNames(spec.rank), "), got shape ",
                                                   input.str()));
  }
  absl::StatusOr<Shape> out =
      NhwcWindowOutputShape(input, spec, input.unknown_rank() ? -1 : input[spec.rank + 1]);
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

// MaxPoolGrad and MaxPool3DGrad (`spec` holds the rank and any explicit paddings).
absl::Status MaxPoolGradShapeOf(ShapeContext& ctx, WindowSpec& spec) {
  const Shape& input = ctx.input_shape(0);
  DUET_ASSIGN_OR_RETURN(const Shape pooled, PoolOutputShape(ctx, input, "orig_input", spec));
  DUET_RETURN_IF_ERROR(
      CheckPooledShape(ctx.input_shape(1), "orig_output", pooled, "orig_input", input));
  DUET_RETURN_IF_ERROR(CheckPooledShape(ctx.input_shape(2), "grad", pooled, "orig_input", input));
  ctx.set_output(0, ctx.output(0).dtype,
                 input.unknown_rank() ? Shape::Unknown(spec.rank + 2) : input);
  return absl::OkStatus();
}

absl::Status MaxPoolGradShape(ShapeContext& ctx) {
  WindowSpec spec;
  spec.padding = ctx.attr(PoolAttrs::kPadding);  // SetExplicitPaddings checks it
  DUET_RETURN_IF_ERROR(SetExplicitPaddings(ctx.attr(MaxPoolAttrs::kExplicitPaddings), spec));
  return MaxPoolGradShapeOf(ctx, spec);
}

absl::Status MaxPool3DGradShape(ShapeContext& ctx) {
  // The kernels read orig_input with grad's dtype (TensorFlow's kernels require them equal too).
  if (ctx.input_dtype(0) != ctx.input_dtype(2)) {
    return absl::InvalidArgumentError(
        absl::StrCat("orig_input and orig_output (TInput ", DTypeName(ctx.input_dtype(0)),
                     ") must have grad's dtype (T ", DTypeName(ctx.input_dtype(2)), ")"));
  }
  WindowSpec spec;
  spec.rank = 3;
  return MaxPoolGradShapeOf(ctx, spec);
}

// AvgPoolGrad (rank 2) and AvgPool3DGrad (rank 3).
template <int kRank>
absl::Status AvgPoolGradShape(ShapeContext& ctx) {
  const Shape& sizes = ctx.input_shape(0);
  if (!sizes.unknown_rank() && (sizes.rank() != 1 || (sizes[0] >= 0 && sizes[0] != kRank + 2))) {
    return absl::InvalidArgumentError(absl::StrCat("orig_input_shape must be a 1-D tensor of ",
                                                   kRank + 2, " values (", NhwcDimNames(kRank),
                                                   "), got shape ", sizes.str()));
  }
  Shape input = Shape::Unknown(kRank + 2);
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
  spec.rank = kRank;
  DUET_ASSIGN_OR_RETURN(const Shape pooled, PoolOutputShape(ctx, input, "orig_input_shape", spec));
  DUET_RETURN_IF_ERROR(
      CheckPooledShape(ctx.input_shape(1), "grad", pooled, "orig_input_shape", input));
  ctx.set_output(0, ctx.output(0).dtype, std::move(input));
  return absl::OkStatus();
}

// MaxPoolGradGrad (rank 2) and MaxPool3DGradGrad (rank 3).
template <int kRank>
absl::Status MaxPoolGradGradShape(ShapeContext& ctx) {
  WindowSpec spec;
  spec.rank = kRank;
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
        .StringAttr(MaxPoolAttrs::kDataFormat, "NHWC", {"NHWC", "NCHW"})
        .TypeAttr(MaxPoolAttrs::kT, kPoolTypes, kFloat32)
        .ChannelsFirst({"orig_input", "orig_output", "grad"}, {}, {"output"})
        .Doc(
            "The gradient of MaxPool's NHWC input: each window's grad goes to the window's first "
            "maximum (row-major) in orig_input.")
        .SetShapeFn(MaxPoolGradShape)
        .Register();

const OpDef* const kAvgPoolGrad =
    DeclareUnpaddedPoolAttrs(OpDefBuilder("AvgPoolGrad")
                                 .Input("orig_input_shape", kInt32)
                                 .HostInputs({"orig_input_shape"})
                                 .Input("grad", "T")
                                 .Output("output", "T"),
                             2, kPoolTypes)
        .ChannelsFirst({"grad"}, {"orig_input_shape"}, {"output"})
        .Doc(
            "The gradient of AvgPool's NHWC input (of shape orig_input_shape): each window's grad "
            "is spread evenly over the window's input cells (padding left out).")
        .SetShapeFn(AvgPoolGradShape<2>)
        .Register();

const OpDef* const kMaxPoolGradGrad =
    DeclareUnpaddedPoolAttrs(OpDefBuilder("MaxPoolGradGrad")
                                 .Input("orig_input", "T")
                                 .Input("orig_output", "T")
                                 .Input("grad", "T")
                                 .Output("output", "T"),
                             2, kPoolTypes)
        .ChannelsFirst({"orig_input", "orig_output", "grad"}, {}, {"output"})
        .Doc(
            "The gradient of MaxPoolGrad's grad input: for each window, grad (orig_input's shape) "
            "at the window's first maximum (row-major) in orig_input.")
        .SetShapeFn(MaxPoolGradGradShape<2>)
        .Register();

const OpDef* const kMaxPool3DGrad =
    DeclareUnpaddedPoolAttrs(OpDefBuilder("MaxPool3DGrad")
                                 .Input("orig_input", "TInput")
                                 .Input("orig_output", "TInput")
                                 .Input("grad", "T")
                                 .Output("output", "T"),
                             3, kMaxPool3DGradTypes, kFloat32)
        .TypeAttr(MaxPool3DGradAttrs::kTInput, kMaxPool3DGradTypes, kFloat32)
        .Doc(
            "The gradient of MaxPool3D's NDHWC input: each window's grad goes to the window's "
            "first maximum (row-major) in orig_input.")
        .SetShapeFn(MaxPool3DGradShape)
        .Register();

const OpDef* const kAvgPool3DGrad =
    DeclareUnpaddedPoolAttrs(OpDefBuilder("AvgPool3DGrad")
                                 .Input("orig_input_shape", kInt32)
                                 .HostInputs({"orig_input_shape"})
                                 .Input("grad", "T")
                                 .Output("output", "T"),
                             3, kPoolTypes)
        .Doc(
            "The gradient of AvgPool3D's NDHWC input (of shape orig_input_shape): each window's "
            "grad is spread evenly over the window's input cells (padding left out).")
        .SetShapeFn(AvgPoolGradShape<3>)
        .Register();

const OpDef* const kMaxPool3DGradGrad =
    DeclareUnpaddedPoolAttrs(OpDefBuilder("MaxPool3DGradGrad")
                                 .Input("orig_input", "T")
                                 .Input("orig_output", "T")
                                 .Input("grad", "T")
                                 .Output("output", "T"),
                             3, kPoolTypes)
        .Doc(
            "The gradient of MaxPool3DGrad's grad input: for each window, grad (orig_input's "
            "shape) at the window's first maximum (row-major) in orig_input.")
        .SetShapeFn(MaxPoolGradGradShape<3>)
        .Register();

// orig_input_shape as the int32 tensor AvgPoolGrad and AvgPool3DGrad take.
Tensor OrigInputShapeTensor(const Shape& orig_input_shape) {
  if (!orig_input_shape.is_fully_defined()) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("orig_input_shape must be fully defined, got ", orig_input_shape.str())));
  }
  const std::vector<int32_t> dims(orig_input_shape.dims().begin(), orig_input_shape.dims().end());
  return from_vector(dims, Shape{static_cast<int64_t>(dims.size())});
}

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
  return RunPoolOp(kAvgPoolGrad, {OrigInputShapeTensor(orig_input_shape), grad}, std::move(ksize),
                   std::move(strides), std::move(padding), 2, site);
}

Tensor max_pool_grad_grad(const Tensor& orig_input, const Tensor& orig_output, const Tensor& grad,
                          std::vector<int64_t> ksize, std::vector<int64_t> strides,
                          std::string padding, OpSite site) {
  return RunPoolOp(kMaxPoolGradGrad, {orig_input, orig_output, grad}, std::move(ksize),
                   std::move(strides), std::move(padding), 2, site);
}

Tensor max_pool3d_grad(const Tensor& orig_input, const Tensor& orig_output, const Tensor& grad,
                       std::vector<int64_t> ksize, std::vector<int64_t> strides,
                       std::string padding, OpSite site) {
  return RunPoolOp(kMaxPool3DGrad, {orig_input, orig_output, grad}, std::move(ksize),
                   std::move(strides), std::move(padding), 3, site);
}

Tensor avg_pool3d_grad(const Shape& orig_input_shape, const Tensor& grad,
                       std::vector<int64_t> ksize, std::vector<int64_t> strides,
                       std::string padding, OpSite site) {
  return RunPoolOp(kAvgPool3DGrad, {OrigInputShapeTensor(orig_input_shape), grad}, std::move(ksize),
                   std::move(strides), std::move(padding), 3, site);
}

Tensor max_pool3d_grad_grad(const Tensor& orig_input, const Tensor& orig_output, const Tensor& grad,
                            std::vector<int64_t> ksize, std::vector<int64_t> strides,
                            std::string padding, OpSite site) {
  return RunPoolOp(kMaxPool3DGradGrad, {orig_input, orig_output, grad}, std::move(ksize),
                   std::move(strides), std::move(padding), 3, site);
}

}  // namespace duet
