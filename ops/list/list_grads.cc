// Gradients of the TensorList ops, as TensorFlow's list_grad.py defines them.
//
// Note [TensorList gradients]: the gradient of a list is a list of the same length (a kVariant
// tensor, so kVariant carries gradients in tapes and gradients()) whose element i is the gradient
// of element i; an element never set reads as zeros. Gradient lists add elementwise (AddN, which
// add_gradients uses for kVariant) and their zeros are a list of unset elements (ZerosLike). So a
// loop that reads an input sequence with GetItem and writes its outputs with SetItem, as Keras
// RNNs do, differentiates in linear time and memory: each iteration's gradient sets one element.
// Reserve, EmptyTensorList, Length and ElementShape take only shapes and sizes: no gradient.
#include "ops/array/array_ops.h"
#include "ops/gradient.h"
#include "ops/list/list_attrs.h"
#include "ops/list/list_ops.h"

namespace duet {
namespace {

// x's shape without its first dim, an int32 vector (the element shape of x's slices): a constant
// when the trace knows it, so that what the gradient stacks has a static shape (and a graph's
// later gradient ops, such as a bias's sum, are planned statically).
Tensor ElementShapeOf(const Tensor& x) {
  const Shape& shape = x.shape();
  if (!shape.unknown_rank() && shape.rank() >= 1) {
    const Shape element(shape.dims().subspan(1));
    if (element.is_fully_defined()) return element_shape_operand(element);
  }
  return slice(shape_of(x), {1}, {-1});
}

// TensorListFromTensor(tensor) -> list: the tensor's gradient is the gradient list stacked.
TensorList FromTensorGrad(const GradientContext& ctx) {
  const Tensor& tensor = ctx.input(0);
  const int64_t n = ctx.input_shape(0).rank() > 0 ? ctx.input_shape(0).dim(0) : -1;
  return {tensor_list_stack(ctx.grad(0), ElementShapeOf(tensor), tensor.dtype(), n), Tensor()};
}

// TensorListStack(list) -> tensor: the list's gradient is the tensor's gradient as a list.
TensorList StackGrad(const GradientContext& ctx) {
  return {tensor_list_from_tensor(ctx.grad(0), ElementShapeOf(ctx.grad(0))), Tensor()};
}

// TensorListGetItem(list, i) -> item: a list of the forward list's length with only element i
// set, to the item's gradient.
TensorList GetItemGrad(const GradientContext& ctx) {
  const Tensor& list = ctx.input(0);
  const Tensor& ditem = ctx.grad(0);
  const Tensor zeros =
      tensor_list_reserve(shape_of(ditem), tensor_list_length(list), ditem.dtype());
  return {tensor_list_set_item(zeros, ctx.input(1), ditem), Tensor(), Tensor()};
}

// TensorListSetItem(list, i, item) -> list': the item's gradient is element i of the upstream
// list; the input list's is the upstream list with element i zeroed (it was overwritten).
TensorList SetItemGrad(const GradientContext& ctx) {
  const Tensor& index = ctx.input(1);
  const Tensor& item = ctx.input(2);
  const Tensor& dlist = ctx.grad(0);
  Tensor ditem = tensor_list_get_item(dlist, index, shape_of(item), item.dtype());
  Tensor dinput = tensor_list_set_item(dlist, index, zeros_like(item));
  return {std::move(dinput), Tensor(), std::move(ditem)};
}

// TensorListPushBack(list, t) -> list': pop the upstream list's last element, t's gradient.
TensorList PushBackGrad(const GradientContext& ctx) {
  const Tensor& tensor = ctx.input(1);
  auto [dlist, dtensor] = tensor_list_pop_back(ctx.grad(0), shape_of(tensor), tensor.dtype());
  return {std::move(dlist), std::move(dtensor)};
}

// TensorListPopBack(list) -> (list', t): push t's gradient back onto the upstream list (zeros of
// list' when only t has an upstream gradient, so the result has the input list's length).
TensorList PopBackGrad(const GradientContext& ctx) {
  const Tensor dlist = ctx.grad(0).defined() ? ctx.grad(0) : zeros_like(ctx.output(0));
  return {tensor_list_push_back(dlist, ctx.grad_or_zeros(1)), Tensor()};
}

const GradientRegistrar kFromTensorGrad("TensorListFromTensor", FromTensorGrad, {0});
const GradientRegistrar kStackGrad("TensorListStack", StackGrad);
const GradientRegistrar kGetItemGrad("TensorListGetItem", GetItemGrad, {0, 1});
const GradientRegistrar kSetItemGrad("TensorListSetItem", SetItemGrad, {1, 2});
const GradientRegistrar kPushBackGrad("TensorListPushBack", PushBackGrad, {1});
const GradientRegistrar kPopBackGrad("TensorListPopBack", PopBackGrad, {}, {0});

const NotDifferentiable kTensorListReserve("TensorListReserve");
const NotDifferentiable kTensorListLength("TensorListLength");
const NotDifferentiable kEmptyTensorList("EmptyTensorList");
const NotDifferentiable kTensorListElementShape("TensorListElementShape");

}  // namespace
}  // namespace duet
