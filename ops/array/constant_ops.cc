// Const and Placeholder: the nodes a graph's values start from. Const holds its value in the
// `value` attr (an eager tensor); a Placeholder is fed by Session::run.
#include "absl/strings/str_cat.h"
#include "ops/array/array_ops.h"
#include "ops/array/shape_fn_util.h"
#include "ops/execution_context.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

enum ConstAttr { kConstValue, kConstDType };
enum PlaceholderAttr { kPlaceholderDType, kPlaceholderShape };

absl::Status ConstShape(ShapeContext& ctx) {
  const Tensor& value = ctx.attr<Tensor>(kConstValue);
  if (!value.defined() || !value.has_value()) {
    return absl::InvalidArgumentError("the value attr must hold a tensor with a value");
  }
  if (value.dtype() != ctx.attr<DType>(kConstDType)) {
    return absl::InvalidArgumentError(absl::StrCat("the value is ", DTypeName(value.dtype()),
                                                   " but dtype is ",
                                                   DTypeName(ctx.attr<DType>(kConstDType))));
  }
  ctx.set_output(0, value.dtype(), value.shape());
  return absl::OkStatus();
}

absl::Status PlaceholderShape(ShapeContext& ctx) {
  ctx.set_output(0, ctx.attr<DType>(kPlaceholderDType), ctx.attr<Shape>(kPlaceholderShape));
  return absl::OkStatus();
}

const OpDef* const kConst = OpDefBuilder("Const")
                                .Output("output", "dtype")
                                .TensorAttr("value")
                                .TypeAttr("dtype", kAllDTypes)
                                .Doc("A constant tensor, held in the value attr.")
                                .SetShapeFn(ConstShape)
                                .Register();

const OpDef* const kPlaceholder =
    OpDefBuilder("Placeholder")
        .Output("output", "dtype")
        .TypeAttr("dtype")  // any, resource too: function arguments may be variables
        .ShapeAttr("shape", Shape::UnknownRank())
        .Doc("A graph input that Session::run feeds; shape may have unknown dims (-1).")
        .SetShapeFn(PlaceholderShape)
        .Register();

}  // namespace

Tensor const_op(const Tensor& value, OpSite site) {
  OpCall call(kConst, {}, site);
  call.attrs[kConstValue] = value;
  if (value.defined()) call.attrs[kConstDType] = value.dtype();
  return RunOp1(call);
}

Tensor placeholder(DType dtype, const Shape& shape, OpSite site) {
  if (executing_eagerly()) {
    throw Error(absl::FailedPreconditionError(absl::StrCat(
        "placeholder() builds a graph input: call it inside a GraphScope (at ", site.str(), ")")));
  }
  OpCall call(kPlaceholder, {}, site);
  call.attrs[kPlaceholderDType] = dtype;
  call.attrs[kPlaceholderShape] = shape;
  return RunOp1(call);
}

}  // namespace duet
