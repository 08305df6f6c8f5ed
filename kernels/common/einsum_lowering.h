// Einsum's kernel for any device: the equation lowered at run time onto the device's kernels of
// Sum, Transpose and BatchMatMulV2, and StridedSlice(Grad) for diagonals (Note [Einsum lowering]
// in ops/nn/einsum_op.cc), with views (Tensor::reshaped) regrouping dims between the steps. The
// CPU and CUDA kernel files register it for float32 and float64, the dtypes all these ops have
// kernels for on both devices.
#pragma once

#include "absl/status/status.h"
#include "kernels/kernel_registry.h"

namespace duet {

// Einsum's kernel: register it with allocates_outputs, as its output may be a view of an input
// ("ij->ij") or of the last step's tensor. Errors are those of the equation (see
// ops/nn/einsum_equation.h) and of the kernels it runs.
absl::Status EinsumLoweringKernel(KernelContext& ctx);

}  // namespace duet
