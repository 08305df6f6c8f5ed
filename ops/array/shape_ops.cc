// Shape queries and constant-filled tensors: Shape, Size, Rank, ZerosLike, OnesLike, Fill.
#include "absl/strings/str_cat.h"
#include "ops/array/array_attrs.h"
#include "ops/array/array_ops.h"
#include "ops/array/index_tensor.h"
#include "ops/array/shape_fn_util.h"
#include "ops/common_shape_fns.h"
#include "ops/op_call.h"

namespace duet {
namespace {

// Named rather than a Shape{} temporary, which trips GCC 12's -Wmaybe-uninitialized in Abseil.
const Shape kScalarShape;

absl::Status ShapeShape(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  ctx.set_output(0, ctx.attr(ShapeAttrs::kOutType),
                 in.unknown_rank() ? Shape{Shape::kUnknownDim} : Shape{in.rank()});
  return absl::OkStatus();
}

absl::Status SizeShape(ShapeContext& ctx) {
  ctx.set_output(0, ctx.attr(ShapeAttrs::kOutType), kScalarShape);
  return absl::OkStatus();
}

absl::Status ScalarShape(ShapeContext& ctx) {
  ctx.set_output(0, ctx.output(0).dtype, kScalarShape);
  return absl::OkStatus();
}

absl::Status FillShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckVectorInput(ctx, 0, "dims"));
  const Shape& value = ctx.input_shape(1);
  if (!value.unknown_rank() && value.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("value must be a scalar, got shape ", value.str()));
  }
  DUET_ASSIGN_OR_RETURN(std::optional<Shape> dims, ShapeFromInput(ctx, 0, "dims"));
  ctx.set_output(0, ctx.output(0).dtype, dims ? *std::move(dims) : UnknownShapeFromInput(ctx, 0));
  return absl::OkStatus();
}

const OpDef* const kShape = OpDefBuilder("Shape")
                                .Input("input", "T")
                                .Output("output", "out_type")
                                .TypeAttr(ShapeAttrs::kT, kAllDTypesAndString)
                                .ReadsOnlyInputShapes()
                                .RunsOnHost()
                                .TypeAttr(ShapeAttrs::kOutType, kIndexTypes, kInt32)
                                .Doc("The shape of the input as a 1-D integer tensor.")
                                .SetShapeFn(ShapeShape)
                                .Register();

const OpDef* const kSize = OpDefBuilder("Size")
                               .Input("input", "T")
                               .Output("output", "out_type")
                               .TypeAttr(ShapeAttrs::kT, kAllDTypesAndString)
                               .ReadsOnlyInputShapes()
                               .RunsOnHost()
                               .TypeAttr(ShapeAttrs::kOutType, kIndexTypes, kInt32)
                               .Doc("The number of elements of the input as an integer scalar.")
                               .SetShapeFn(SizeShape)
                               .Register();

const OpDef* const kRank = OpDefBuilder("Rank")
                               .Input("input", "T")
                               .Output("output", kInt32)
                               .TypeAttr("T", kAllDTypesAndString)
                               .ReadsOnlyInputShapes()
                               .RunsOnHost()
                               .Doc("The rank of the input as an int32 scalar.")
                               .SetShapeFn(ScalarShape)
                               .Register();

// Every value dtype and kVariant: zeros of a TensorList are a list of unset elements (Note
// [TensorList gradients] in ops/list/list_grads.cc).
const std::vector<DType> kZerosLikeTypes = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32,
                                            kInt64,   kBool,    kUInt8,   kVariant};

const OpDef* const kZerosLike = OpDefBuilder("ZerosLike")
                                    .Input("x", "T")
                                    .Output("y", "T")
                                    .TypeAttr("T", kZerosLikeTypes)
                                    .ReadsOnlyInputShapes()
                                    .Doc("Zeros with the input's dtype and shape.")
                                    .SetShapeFn(UnchangedShape)
                                    .Register();

const OpDef* const kOnesLike = OpDefBuilder("OnesLike")
                                   .Input("x", "T")
                                   .Output("y", "T")
                                   .TypeAttr("T", kAllDTypes)
                                   .ReadsOnlyInputShapes()
                                   .Doc("Ones with the input's dtype and shape.")
                                   .SetShapeFn(UnchangedShape)
                                   .Register();

const OpDef* const kFill = OpDefBuilder("Fill")
                               .Input("dims", "index_type")
                               .HostInputs({"dims"})
                               .Input("value", "T")
                               .Output("output", "T")
                               .TypeAttr("T", kAllDTypes)
                               .TypeAttr("index_type", kIndexTypes, kInt32)
                               .Doc("A tensor of shape `dims` filled with the scalar `value`.")
                               .SetShapeFn(FillShape)
                               .Register();

}  // namespace

Tensor shape_of(const Tensor& x, DType out_type, OpSite site) {
  OpCall call(kShape, {x}, site);
  call.set(ShapeAttrs::kOutType, out_type);
  return RunSingleOutputOp(call);
}

Tensor size(const Tensor& x, DType out_type, OpSite site) {
  OpCall call(kSize, {x}, site);
  call.set(ShapeAttrs::kOutType, out_type);
  return RunSingleOutputOp(call);
}

Tensor rank(const Tensor& x, OpSite site) {
  OpCall call(kRank, {x}, site);
  return RunSingleOutputOp(call);
}

Tensor zeros_like(const Tensor& x, OpSite site) {
  OpCall call(kZerosLike, {x}, site);
  return RunSingleOutputOp(call);
}

Tensor ones_like(const Tensor& x, OpSite site) {
  OpCall call(kOnesLike, {x}, site);
  return RunSingleOutputOp(call);
}

Tensor fill(const Shape& dims, const Tensor& value, OpSite site) {
  return fill(IndexTensor(dims.dims()), value, site);
}

Tensor fill(std::initializer_list<int64_t> dims, const Tensor& value, OpSite site) {
  return fill(Shape(dims), value, site);
}

Tensor fill(const Tensor& dims, const Tensor& value, OpSite site) {
  OpCall call(kFill, {dims, value}, site);
  return RunSingleOutputOp(call);
}

}  // namespace duet
