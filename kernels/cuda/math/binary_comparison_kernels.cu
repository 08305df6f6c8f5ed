// The comparisons and logical ops: bool results.
#include "kernels/cuda/math/binary_kernels.cu.h"

namespace duet::cuda {

cudaError_t LaunchComparison(BinaryOp op, ElementType type, const void* x, const void* y, void* z,
                             const ElementwiseLayout& layout, cudaStream_t stream) {
  constexpr TypeSet kArith = TypeSet::kArithmetic;
  switch (op) {
    case BinaryOp::kEqual:
      return LaunchBinaryOp<duet_gpu::EqualFn, TypeSet::kAll, true>(type, x, y, z, layout, stream);
    case BinaryOp::kNotEqual:
      return LaunchBinaryOp<duet_gpu::NotEqualFn, TypeSet::kAll, true>(type, x, y, z, layout,
                                                                       stream);
    case BinaryOp::kLess:
      return LaunchBinaryOp<duet_gpu::LessFn, kArith, true>(type, x, y, z, layout, stream);
    case BinaryOp::kLessEqual:
      return LaunchBinaryOp<duet_gpu::LessEqualFn, kArith, true>(type, x, y, z, layout, stream);
    case BinaryOp::kGreater:
      return LaunchBinaryOp<duet_gpu::GreaterFn, kArith, true>(type, x, y, z, layout, stream);
    case BinaryOp::kGreaterEqual:
      return LaunchBinaryOp<duet_gpu::GreaterEqualFn, kArith, true>(type, x, y, z, layout, stream);
    case BinaryOp::kLogicalAnd:
      return LaunchBinaryOp<duet_gpu::LogicalAndFn, TypeSet::kBoolOnly, true>(type, x, y, z, layout,
                                                                              stream);
    case BinaryOp::kLogicalOr:
      return LaunchBinaryOp<duet_gpu::LogicalOrFn, TypeSet::kBoolOnly, true>(type, x, y, z, layout,
                                                                             stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace duet::cuda
