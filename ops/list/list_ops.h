// TensorList ops (TensorFlow's list_ops): a list of tensors held by a 0-d kVariant tensor
// (core/tensor_list.h), as Keras RNNs carry their inputs and outputs through While loops. Lists
// are values: every op returns a new list and never changes its input. The ops run on the host.
//
// `element_shape` operands are TensorFlow's partial shapes as int32 or int64 tensors: a scalar -1
// is an unknown rank, a vector gives the dims with -1 for unknown ones. Reading an element that
// was never set gives zeros, which needs a fully defined element shape (the list's merged with
// the one the read passes). Errors (InvalidArgument): an index out of range, an item or element
// of another dtype or of a shape incompatible with the list's element shape, a list that is not
// a TensorList.
#pragma once

#include <cstdint>
#include <utility>

#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet {

// `shape` as an int32 `element_shape` operand (a constant): a scalar -1 for an unknown rank, else
// the dims with -1 for unknown ones.
Tensor element_shape_operand(const Shape& shape);

// A list of `num_elements` (int32 scalar) unset elements of `element_dtype` and `element_shape`
// (TensorListReserve).
Tensor tensor_list_reserve(const Tensor& element_shape, const Tensor& num_elements,
                           DType element_dtype, OpSite site = {});
// An empty list of `element_dtype` and `element_shape` (EmptyTensorList). `max_num_elements`
// (int32 scalar) bounds the length TensorListPushBack may reach; -1 for no bound.
Tensor empty_tensor_list(const Tensor& element_shape, const Tensor& max_num_elements,
                         DType element_dtype, OpSite site = {});
// A copy of `list` with `tensor` appended (TensorListPushBack).
Tensor tensor_list_push_back(const Tensor& list, const Tensor& tensor, OpSite site = {});
// The list without its last element, and that element, of dtype `element_dtype`
// (TensorListPopBack); an unset last element reads as zeros of `element_shape`. Popping an empty
// list is an error.
std::pair<Tensor, Tensor> tensor_list_pop_back(const Tensor& list, const Tensor& element_shape,
                                               DType element_dtype, OpSite site = {});
// The list of `tensor`'s slices along axis 0, whose shape must be compatible with
// `element_shape` (TensorListFromTensor).
Tensor tensor_list_from_tensor(const Tensor& tensor, const Tensor& element_shape, OpSite site = {});
// A copy of `list` with element `index` (int32 scalar, 0 <= index < length) set to `item`
// (TensorListSetItem).
Tensor tensor_list_set_item(const Tensor& list, const Tensor& index, const Tensor& item,
                            OpSite site = {});
// Element `index` of `list`, of dtype `element_dtype` (TensorListGetItem).
Tensor tensor_list_get_item(const Tensor& list, const Tensor& index, const Tensor& element_shape,
                            DType element_dtype, OpSite site = {});
// The elements stacked along a new axis 0; every element must have the same shape
// (TensorListStack). `num_elements`, when not -1, must be the list's length.
Tensor tensor_list_stack(const Tensor& list, const Tensor& element_shape, DType element_dtype,
                         int64_t num_elements = -1, OpSite site = {});
// The number of elements, an int32 scalar (TensorListLength).
Tensor tensor_list_length(const Tensor& list, OpSite site = {});
// The list's element shape as a `shape_type` (int32 or int64) tensor: -1 for an unknown rank,
// else a vector with -1 for unknown dims (TensorListElementShape).
Tensor tensor_list_element_shape(const Tensor& list, DType shape_type = kInt32, OpSite site = {});

}  // namespace duet
