// TensorList: the value a kVariant tensor holds (TensorFlow's TensorList, which Keras RNNs carry
// through While loops).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/tensor.h"

namespace duet {

// A list of tensors of one dtype and a (partial) element shape. Immutable once a kVariant tensor
// holds it: TensorListSetItem makes a new list (Note [TensorLists are values] in
// core/tensor_list.cc). An element that was never set is an undefined Tensor; reading one gives
// zeros of the element shape, which must then be fully defined.
struct TensorListValue {
  DType element_dtype = kFloat32;
  Shape element_shape = Shape::UnknownRank();
  std::vector<Tensor> elements;   // CPU tensors (immutable, shared), or undefined
  int64_t max_num_elements = -1;  // EmptyTensorList's bound on TensorListPushBack, or -1
};

// A 0-d kVariant CPU tensor holding `list`.
Tensor MakeTensorListTensor(std::shared_ptr<const TensorListValue> list);

// The list a kVariant tensor holds; nullptr for any other tensor (or a symbolic one).
const TensorListValue* TensorListOf(const Tensor& t);

// TensorFlow's encoding of a partial shape as a tensor (int32 or int64): a scalar -1 is an unknown
// rank, a vector gives the dims with -1 for unknown ones. InvalidArgument for anything else.
absl::StatusOr<Shape> ShapeFromTensor(const Tensor& t);

}  // namespace duet
