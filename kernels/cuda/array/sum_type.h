// The element type of the array family's summing launchers (UnsortedSegmentSum, MirrorPadGrad,
// ScatterNd, TensorScatterAdd).
#pragma once

#include "core/dtype.h"
#include "kernels/cuda/array/array_kernels.h"

namespace duet::cuda {

// The launchers' type for `dtype`, one of the numeric dtypes (anything else reads as float32).
inline SegmentSumType SumTypeOf(DType dtype) {
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
