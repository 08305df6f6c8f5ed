// The binary arithmetic ops (LaunchBinary's entry point; comparisons are forwarded).
#include "kernels/cuda/math/binary_kernels.cu.h"

namespace duet::cuda {

cudaError_t LaunchBinary(BinaryOp op, ElementType type, const void* x, const void* y, void* z,
                         const ElementwiseLayout& layout, cudaStream_t stream) {
  constexpr TypeSet kArith = TypeSet::kArithmetic;
  switch (op) {
    case BinaryOp::kAdd:
      return LaunchBinaryOp<duet_gpu::AddFn, kArith, false>(type, x, y, z, layout, stream);
    case BinaryOp::kSub:
      return LaunchBinaryOp<duet_gpu::SubFn, kArith, false>(type, x, y, z, layout, stream);
    case BinaryOp::kMul:
      return LaunchBinaryOp<duet_gpu::MulFn, kArith, false>(type, x, y, z, layout, stream);
    case BinaryOp::kDiv:
      return LaunchBinaryOp<duet_gpu::DivFn, kArith, false>(type, x, y, z, layout, stream);
    case BinaryOp::kFloorMod:
      return LaunchBinaryOp<duet_gpu::FloorModFn, kArith, false>(type, x, y, z, layout, stream);
    case BinaryOp::kPow:
      return LaunchBinaryOp<duet_gpu::PowFn, kArith, false>(type, x, y, z, layout, stream);
    case BinaryOp::kMaximum:
      return LaunchBinaryOp<duet_gpu::MaximumFn, kArith, false>(type, x, y, z, layout, stream);
    case BinaryOp::kMinimum:
      return LaunchBinaryOp<duet_gpu::MinimumFn, kArith, false>(type, x, y, z, layout, stream);
    case BinaryOp::kFloorDiv:
      return LaunchBinaryOp<duet_gpu::FloorDivFn, kArith, false>(type, x, y, z, layout, stream);
    case BinaryOp::kTruncateDiv:
      return LaunchBinaryOp<duet_gpu::TruncateDivFn, kArith, false>(type, x, y, z, layout, stream);
    case BinaryOp::kSquaredDifference:
      return LaunchBinaryOp<duet_gpu::SquaredDifferenceFn, kArith, false>(type, x, y, z, layout,
                                                                          stream);
    case BinaryOp::kAtan2:
      return LaunchBinaryOp<duet_gpu::Atan2Fn, TypeSet::kFloat, false>(type, x, y, z, layout,
                                                                       stream);
    default:
      return LaunchComparison(op, type, x, y, z, layout, stream);
  }
}

}  // namespace duet::cuda
