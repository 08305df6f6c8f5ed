// The launchers' element type of an adding kernel's dtype (UnsortedSegmentSum, ScatterNd).
#pragma once

#include "core/dtype.h"
#include "kernels/cuda/array/array_kernels.h"

namespace duet::cuda {

// float32 for the dtypes without their own type (the kernels register none of them).
inline SegmentSumType SegmentTypeOf(DType dtype) {
  switch (dtype) {
    case kFloat64:
      return SegmentSumType::kFloat64;
    case kFloat16:
      return SegmentSumType::kFloat16;
    case kBFloat16:
      return SegmentSumType::kBFloat16;
    case kInt32:
      return SegmentSumType::kInt32;
    case kInt64:
      return SegmentSumType::kInt64;
    default:
      return SegmentSumType::kFloat32;
  }
}

}  // namespace duet::cuda
