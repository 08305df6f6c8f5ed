// NumPy's basic indexing as StridedSlice operands: what Tensor::index (core/tensor_index.h) and
// Variable::index_put lower to (Note [Tensor indexing] in ops/composite/indexing.cc).
#pragma once

#include "absl/types/span.h"
#include "core/tensor_index.h"
#include "ops/array/strided_slice_spec.h"
#include "ops/op_site.h"

namespace duet {

// The begin, end and strides (1-D tensors of one int dtype: constants when every entry is an
// integer, else packed from the tensor entries) and masks of a strided slice selecting `indices`.
// Throws Error for a tensor entry that is not an int32/int64 scalar.
struct IndexOperands {
  Tensor begin, end, strides;
  StridedSliceMasks masks;
};
IndexOperands StridedSliceOperands(absl::Span<const TensorIndex> indices, const OpSite& site);

}  // namespace duet
