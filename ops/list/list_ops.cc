// TensorListReserve, EmptyTensorList, TensorListFromTensor, TensorListSetItem, TensorListGetItem,
// TensorListPushBack, TensorListPopBack, TensorListStack, TensorListLength,
// TensorListElementShape: TensorFlow's OpDefs, attrs reordered so that element_dtype comes first
// (the kernels dispatch on it).
#include "ops/list/list_ops.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/tensor_list.h"
#include "ops/list/list_attrs.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

const Shape kScalarShape;  // a named scalar shape: a temporary trips a false -Wuninitialized
const std::vector<DType> kShapeTypes = {kInt32, kInt64};

// OK when input i, when its rank is known, is at most `max_rank`-dimensional.
absl::Status CheckRankAtMost(const ShapeContext& ctx, int i, int max_rank, absl::string_view what) {
  const Shape& shape = ctx.input_shape(i);
  if (shape.unknown_rank() || shape.rank() <= max_rank) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(what, " must be ", max_rank == 0 ? "a scalar" : "a scalar or a vector",
                   ", not of shape ", shape.str()));
}

// The partial shape the element_shape input i gives, or an unknown rank when its value is not
// known (a graph tensor that is not a constant).
absl::StatusOr<Shape> ElementShapeInput(const ShapeContext& ctx, int i) {
  DUET_RETURN_IF_ERROR(CheckRankAtMost(ctx, i, 1, "element_shape"));
  const Tensor* value = ctx.input_value(i);
  if (value == nullptr || !value->has_value() || !value->device().is_host()) {
    return Shape::UnknownRank();
  }
  return ShapeFromTensor(*value);
}

absl::Status ListOutputShape(ShapeContext& ctx) {
  ctx.set_output(0, kVariant, kScalarShape);
  return absl::OkStatus();
}

absl::Status ReserveShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(ElementShapeInput(ctx, 0).status());
  DUET_RETURN_IF_ERROR(CheckRankAtMost(ctx, 1, 0, "num_elements"));
  return ListOutputShape(ctx);
}

absl::Status EmptyShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(ElementShapeInput(ctx, 0).status());
  DUET_RETURN_IF_ERROR(CheckRankAtMost(ctx, 1, 0, "max_num_elements"));
  return ListOutputShape(ctx);
}

absl::Status PopBackShape(ShapeContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const Shape element_shape, ElementShapeInput(ctx, 1));
  ctx.set_output(0, kVariant, kScalarShape);
  ctx.set_output(1, ctx.attr(TensorListAttrs::kElementDtype), element_shape);
  return absl::OkStatus();
}

absl::Status FromTensorShape(ShapeContext& ctx) {
  const Shape& tensor = ctx.input_shape(0);
  if (!tensor.unknown_rank() && tensor.rank() == 0) {
    return absl::InvalidArgumentError("tensor must have at least one dim (the list's length)");
  }
  DUET_ASSIGN_OR_RETURN(const Shape element_shape, ElementShapeInput(ctx, 1));
  if (!tensor.unknown_rank()) {
    const Shape element(tensor.dims().subspan(1));
    if (!element.IsCompatibleWith(element_shape)) {
      return absl::InvalidArgumentError(absl::StrCat("tensor of shape ", tensor.str(),
                                                     " has elements of shape ", element.str(),
                                                     ", not ", element_shape.str()));
    }
  }
  return ListOutputShape(ctx);
}

absl::Status SetItemShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckRankAtMost(ctx, 1, 0, "index"));
  return ListOutputShape(ctx);
}

absl::Status GetItemShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckRankAtMost(ctx, 1, 0, "index"));
  DUET_ASSIGN_OR_RETURN(const Shape element_shape, ElementShapeInput(ctx, 2));
  ctx.set_output(0, ctx.attr(TensorListAttrs::kElementDtype), element_shape);
  return absl::OkStatus();
}

absl::Status StackShape(ShapeContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const Shape element_shape, ElementShapeInput(ctx, 1));
  const int64_t n = ctx.attr(TensorListAttrs::kNumElements);
  if (n < -1) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_elements must be >= 0, or -1 (unknown), not ", n));
  }
  Shape out = Shape::UnknownRank();
  if (!element_shape.unknown_rank()) {
    out = Shape({n});
    for (int64_t d : element_shape.dims()) out.push_back(d);
  }
  ctx.set_output(0, ctx.attr(TensorListAttrs::kElementDtype), std::move(out));
  return absl::OkStatus();
}

absl::Status LengthShape(ShapeContext& ctx) {
  ctx.set_output(0, kInt32, kScalarShape);
  return absl::OkStatus();
}

absl::Status ElementShapeShape(ShapeContext& ctx) {
  ctx.set_output(0, ctx.attr(TensorListElementShapeAttrs::kShapeType), Shape::UnknownRank());
  return absl::OkStatus();
}

const OpDef* const kTensorListReserve =
    OpDefBuilder("TensorListReserve")
        .Input("element_shape", "shape_type")
        .Input("num_elements", kInt32)
        .Output("handle", kVariant)
        .TypeAttr(TensorListAttrs::kElementDtype)
        .TypeAttr(TensorListAttrs::kShapeType, kShapeTypes)
        .RunsOnHost()
        .Doc("A list of num_elements unset elements of element_dtype and element_shape.")
        .SetShapeFn(ReserveShape)
        .Register();

const OpDef* const kEmptyTensorList = OpDefBuilder("EmptyTensorList")
                                          .Input("element_shape", "shape_type")
                                          .Input("max_num_elements", kInt32)
                                          .Output("handle", kVariant)
                                          .TypeAttr(TensorListAttrs::kElementDtype)
                                          .TypeAttr(TensorListAttrs::kShapeType, kShapeTypes)
                                          .RunsOnHost()
                                          .Doc("An empty list of element_dtype and element_shape.")
                                          .SetShapeFn(EmptyShape)
                                          .Register();

const OpDef* const kTensorListPushBack = OpDefBuilder("TensorListPushBack")
                                             .Input("input_handle", kVariant)
                                             .Input("tensor", "element_dtype")
                                             .Output("output_handle", kVariant)
                                             .TypeAttr(TensorListAttrs::kElementDtype)
                                             .RunsOnHost()
                                             .Doc("A copy of the list with tensor appended.")
                                             .SetShapeFn(ListOutputShape)
                                             .Register();

const OpDef* const kTensorListPopBack =
    OpDefBuilder("TensorListPopBack")
        .Input("input_handle", kVariant)
        .Input("element_shape", kInt32)
        .Output("output_handle", kVariant)
        .Output("tensor", "element_dtype")
        .TypeAttr(TensorListAttrs::kElementDtype)
        .RunsOnHost()
        .Doc("The list without its last element, and that element.")
        .SetShapeFn(PopBackShape)
        .Register();

const OpDef* const kTensorListFromTensor = OpDefBuilder("TensorListFromTensor")
                                               .Input("tensor", "element_dtype")
                                               .Input("element_shape", "shape_type")
                                               .Output("output_handle", kVariant)
                                               .TypeAttr(TensorListAttrs::kElementDtype)
                                               .TypeAttr(TensorListAttrs::kShapeType, kShapeTypes)
                                               .RunsOnHost()
                                               .Doc("The list of a tensor's slices along axis 0.")
                                               .SetShapeFn(FromTensorShape)
                                               .Register();

const OpDef* const kTensorListSetItem =
    OpDefBuilder("TensorListSetItem")
        .Input("input_handle", kVariant)
        .Input("index", kInt32)
        .Input("item", "element_dtype")
        .Output("output_handle", kVariant)
        .TypeAttr(TensorListAttrs::kElementDtype)
        .BoolAttr(TensorListAttrs::kResizeIfIndexOutOfBounds, false)
        .RunsOnHost()
        .Doc("A copy of the list with element index set to item.")
        .SetShapeFn(SetItemShape)
        .Register();

const OpDef* const kTensorListGetItem =
    OpDefBuilder("TensorListGetItem")
        .Input("input_handle", kVariant)
        .Input("index", kInt32)
        .Input("element_shape", "Tshape")
        .Output("item", "element_dtype")
        .TypeAttr(TensorListAttrs::kElementDtype)
        .TypeAttr(TensorListAttrs::kTshape, kShapeTypes, kInt32)
        .RunsOnHost()
        .Doc("Element index of the list (zeros of element_shape when it was never set).")
        .SetShapeFn(GetItemShape)
        .Register();

const OpDef* const kTensorListStack = OpDefBuilder("TensorListStack")
                                          .Input("input_handle", kVariant)
                                          .Input("element_shape", kInt32)
                                          .Output("tensor", "element_dtype")
                                          .TypeAttr(TensorListAttrs::kElementDtype)
                                          .IntAttr(TensorListAttrs::kNumElements, -1)
                                          .RunsOnHost()
                                          .Doc("The list's elements stacked along a new axis 0.")
                                          .SetShapeFn(StackShape)
                                          .Register();

const OpDef* const kTensorListLength = OpDefBuilder("TensorListLength")
                                           .Input("input_handle", kVariant)
                                           .Output("length", kInt32)
                                           .RunsOnHost()
                                           .Doc("The number of elements of the list.")
                                           .SetShapeFn(LengthShape)
                                           .Register();

const OpDef* const kTensorListElementShape =
    OpDefBuilder("TensorListElementShape")
        .Input("input_handle", kVariant)
        .Output("element_shape", "shape_type")
        .TypeAttr(TensorListElementShapeAttrs::kShapeType, kShapeTypes)
        .RunsOnHost()
        .Doc(
            "The list's element shape: -1 for an unknown rank, else dims with -1 for unknown ones.")
        .SetShapeFn(ElementShapeShape)
        .Register();

}  // namespace

Tensor tensor_list_reserve(const Tensor& element_shape, const Tensor& num_elements,
                           DType element_dtype, OpSite site) {
  OpCall call(kTensorListReserve, {element_shape, num_elements}, site);
  call.set(TensorListAttrs::kElementDtype, element_dtype);
  return RunSingleOutputOp(call);
}

Tensor empty_tensor_list(const Tensor& element_shape, const Tensor& max_num_elements,
                         DType element_dtype, OpSite site) {
  OpCall call(kEmptyTensorList, {element_shape, max_num_elements}, site);
  call.set(TensorListAttrs::kElementDtype, element_dtype);
  return RunSingleOutputOp(call);
}

Tensor tensor_list_push_back(const Tensor& list, const Tensor& tensor, OpSite site) {
  OpCall call(kTensorListPushBack, {list, tensor}, site);
  return RunSingleOutputOp(call);
}

std::pair<Tensor, Tensor> tensor_list_pop_back(const Tensor& list, const Tensor& element_shape,
                                               DType element_dtype, OpSite site) {
  OpCall call(kTensorListPopBack, {list, element_shape}, site);
  call.set(TensorListAttrs::kElementDtype, element_dtype);
  OutputList out = RunOp(call);
  return {out[0], out[1]};
}

Tensor tensor_list_from_tensor(const Tensor& tensor, const Tensor& element_shape, OpSite site) {
  OpCall call(kTensorListFromTensor, {tensor, element_shape}, site);
  return RunSingleOutputOp(call);
}

Tensor tensor_list_set_item(const Tensor& list, const Tensor& index, const Tensor& item,
                            OpSite site) {
  OpCall call(kTensorListSetItem, {list, index, item}, site);
  return RunSingleOutputOp(call);
}

Tensor tensor_list_get_item(const Tensor& list, const Tensor& index, const Tensor& element_shape,
                            DType element_dtype, OpSite site) {
  OpCall call(kTensorListGetItem, {list, index, element_shape}, site);
  call.set(TensorListAttrs::kElementDtype, element_dtype);
  return RunSingleOutputOp(call);
}

Tensor tensor_list_stack(const Tensor& list, const Tensor& element_shape, DType element_dtype,
                         int64_t num_elements, OpSite site) {
  OpCall call(kTensorListStack, {list, element_shape}, site);
  call.set(TensorListAttrs::kElementDtype, element_dtype);
  call.set(TensorListAttrs::kNumElements, num_elements);
  return RunSingleOutputOp(call);
}

Tensor element_shape_operand(const Shape& shape) {
  if (shape.unknown_rank()) return constant(-1);
  std::vector<int32_t> dims(shape.dims().begin(), shape.dims().end());
  return constant(dims, Shape({static_cast<int64_t>(dims.size())}));
}

Tensor tensor_list_length(const Tensor& list, OpSite site) {
  OpCall call(kTensorListLength, {list}, site);
  return RunSingleOutputOp(call);
}

Tensor tensor_list_element_shape(const Tensor& list, DType shape_type, OpSite site) {
  OpCall call(kTensorListElementShape, {list}, site);
  call.set(TensorListElementShapeAttrs::kShapeType, shape_type);
  return RunSingleOutputOp(call);
}

}  // namespace duet
