// Const and Placeholder: the nodes a graph's values start from. Const holds its value in the
// `value` attr (an eager tensor); a Placeholder is fed by Session::run.
#include "absl/strings/str_cat.h"
#include "ops/array/array_attrs.h"
#include "ops/array/array_ops.h"
#include "ops/array/shape_fn_util.h"
#include "ops/execution_context.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

absl::Status ConstShape(ShapeContext& ctx) {
  const Tensor& value = ctx.attr(ConstAttrs::kValue);
  if (!value.defined() || !value.has_value()) {
    return absl::InvalidArgumentError("the value attr must hold a tensor with a value");
  }
  if (value.dtype() != ctx.attr(ConstAttrs::kDtype)) {
    return absl::InvalidArgumentError(absl::StrCat("the value is ", DTypeName(value.dtype()),
                                                   " but dtype is ",
                                                   DTypeName(ctx.attr(ConstAttrs::kDtype))));
  }
  ctx.set_output(0, value.dtype(), value.shape());
  return absl::OkStatus();
}

absl::Status PlaceholderShape(ShapeContext& ctx) {
  ctx.set_output(0, ctx.attr(PlaceholderAttrs::kDtype), ctx.attr(PlaceholderAttrs::kShape));
  return absl::OkStatus();
}

const OpDef* const kConst = OpDefBuilder("Const")
                                .Output("output", "dtype")
                                .TensorAttr(ConstAttrs::kValue)
                                .TypeAttr(ConstAttrs::kDtype, kAllDTypesAndString)
                                .Doc("A constant tensor, held in the value attr.")
                                .SetShapeFn(ConstShape)
                                .Register();

const std::vector<DType> kPlaceholderTypes = [] {
  std::vector<DType> types = kAllDTypesAndString;
  types.push_back(kResource);
  types.push_back(kVariant);
  return types;
}();

const OpDef* const kPlaceholder =
    OpDefBuilder("Placeholder")
        .Output("output", "dtype")
        // Strings, and resources and variants too: function arguments may be variables or lists.
        .TypeAttr(PlaceholderAttrs::kDtype, kPlaceholderTypes)
        .ShapeAttr(PlaceholderAttrs::kShape, Shape::UnknownRank())
        .Doc("A graph input that Session::run feeds; shape may have unknown dims (-1).")
        .SetShapeFn(PlaceholderShape)
        .Register();

}  // namespace

Tensor const_op(const Tensor& value, OpSite site) {
  OpCall call(kConst, {}, site);
  call.set(ConstAttrs::kValue, value);
  if (value.defined()) call.set(ConstAttrs::kDtype, value.dtype());
  return RunSingleOutputOp(call);
}

Tensor placeholder(DType dtype, const Shape& shape, OpSite site) {
  if (executing_eagerly()) {
    throw Error(absl::FailedPreconditionError(absl::StrCat(
        "placeholder() builds a graph input: call it inside a GraphScope (at ", site.str(), ")")));
  }
  OpCall call(kPlaceholder, {}, site);
  call.set(PlaceholderAttrs::kDtype, dtype);
  call.set(PlaceholderAttrs::kShape, shape);
  return RunSingleOutputOp(call);
}

}  // namespace duet
