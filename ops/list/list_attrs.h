// The attrs of the TensorList ops, as typed keys (Note [Attribute keys] in ops/attr_key.h).
#pragma once

#include <cstdint>

#include "ops/attr_key.h"
#include "ops/attr_value.h"

namespace duet {

// Every list op but TensorListLength and TensorListElementShape: the elements' dtype comes first,
// so the kernels dispatch on it; the op's second attr follows at position 1.
struct TensorListAttrs {
  static constexpr AttrKey<DType> kElementDtype{0, "element_dtype"};
  // TensorListReserve, TensorListFromTensor, EmptyTensorList: the dtype of the element_shape
  // input.
  static constexpr AttrKey<DType> kShapeType{1, "shape_type"};
  // TensorListGetItem: the dtype of the element_shape input.
  static constexpr AttrKey<DType> kTshape{1, "Tshape"};
  // TensorListSetItem: grow the list to index + 1 instead of failing.
  static constexpr AttrKey<bool> kResizeIfIndexOutOfBounds{1, "resize_if_index_out_of_bounds"};
  // TensorListStack: the list's length when known, else -1.
  static constexpr AttrKey<int64_t> kNumElements{1, "num_elements"};
};

// TensorListElementShape: the dtype of its output.
struct TensorListElementShapeAttrs {
  static constexpr AttrKey<DType> kShapeType{0, "shape_type"};
};

}  // namespace duet
