// The public switch for TF32 in CUDA float32 matrix products (MatMul, BatchMatMulV2, _FusedMatMul,
// _ResourceApplyMatMulGradientDescent). Off by default, so float32 products on the GPU are exact
// float32 products (within summation-order rounding of the CPU's), like PyTorch's
// torch.backends.cuda.matmul.allow_tf32 = False. On, cuBLAS may round the operands to TF32 (10
// mantissa bits) on tensor cores: several times faster on Ampere and Hopper, with relative errors
// around 1e-3. Convolutions are unaffected (cuDNN's float32 math stays exact by default).
#pragma once

namespace duet::cuda {

// Allows (true) or forbids (false, the default) TF32 tensor-core math in float32 matmuls from
// the next op on; process-wide and thread-safe.
void set_allow_tf32(bool allow);

// Whether float32 matmuls may use TF32 (set_allow_tf32).
bool allow_tf32();

}  // namespace duet::cuda
