// The launchers' activation for a fused op's epilogue (kernels/common/fused_epilogue.h parses
// fused_ops for the CPU and CUDA kernels alike).
#pragma once

#include "kernels/common/fused_epilogue.h"
#include "kernels/cuda/nn/nn_launch_types.h"

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

}  // namespace duet::cuda
