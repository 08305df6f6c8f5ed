// A fused op's epilogue (kernels/common/fused_epilogue.h parses fused_ops for the CPU and CUDA
// kernels alike) on CUDA: one elementwise kernel over the product, in place.
#pragma once

#include <cuda_runtime.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/error.h"
#include "kernels/common/fused_epilogue.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/nn/activation_launchers.h"
#include "kernels/cuda/nn/nn_kernel_util.h"
#include "kernels/cuda/nn/nn_launch_types.h"
#include "kernels/kernel_registry.h"

namespace duet::cuda {

inline NnActivation ToNnActivation(FusedActivation activation) {
  switch (activation) {
    case FusedActivation::kNone:
      return NnActivation::kNone;
    case FusedActivation::kRelu:
      return NnActivation::kRelu;
    case FusedActivation::kRelu6:
      return NnActivation::kRelu6;
    case FusedActivation::kElu:
      return NnActivation::kElu;
    case FusedActivation::kTanh:
      return NnActivation::kTanh;
    case FusedActivation::kSigmoid:
      return NnActivation::kSigmoid;
    case FusedActivation::kLeakyRelu:
      return NnActivation::kLeakyRelu;
  }
  return NnActivation::kNone;
}

// out = activation(out + bias (+ residual)) for the fused op of `ctx`, whose args are inputs 2
// (the bias, along out's last dim) and 3 (the residual, out's shape, when the epilogue adds one).
inline absl::Status ApplyFusedEpilogue(KernelContext& ctx, const FusedEpilogue& epilogue,
                                       Tensor& out, cudaStream_t stream, absl::string_view what) {
  DUET_ASSIGN_OR_RETURN(const NnType type, ToNnType(out.dtype()));
  const void* residual = epilogue.add_residual ? ctx.input(3).raw_data() : nullptr;
  return CudaStatus(
      LaunchBiasActivation(ToNnActivation(epilogue.activation), type, out.raw_data(),
                           ctx.input(2).raw_data(), residual, out.raw_data(), out.num_elements(),
                           out.shape()[out.rank() - 1], epilogue.leakyrelu_alpha, stream),
      what);
}

}  // namespace duet::cuda
