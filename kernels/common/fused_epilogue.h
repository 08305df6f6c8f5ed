// The epilogue of the fused ops (_FusedMatMul, _FusedConv2D, _FusedDepthwiseConv2dNative): what
// they do to their product after computing it, as their fused_ops attr names it: + bias along the
// last dim, then optionally + a residual tensor of the output's shape ("Add"), then optionally an
// activation. The CPU runs it inside oneDNN's primitives or as a loop
// (kernels/cpu/nn/fused_epilogue.h), CUDA as one elementwise kernel
// (kernels/cuda/nn/fused_activation.h).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace duet {

// The activation after the bias (TensorFlow's op names in fused_ops).
enum class FusedActivation { kNone, kRelu, kRelu6, kElu, kTanh, kSigmoid, kLeakyRelu };

struct FusedEpilogue {
  // Whether the residual (args[1], the output's shape) is added after the bias: fused_ops
  // {"BiasAdd", "Add", ...}, as TensorFlow's remapper names the fusion of a ResNet block's sum.
  bool add_residual = false;
  FusedActivation activation = FusedActivation::kNone;
  float leakyrelu_alpha = 0.2f;  // LeakyRelu's slope for x < 0
};

// The epilogue named by fused_ops: {"BiasAdd"}, then optionally "Add", then optionally an
// activation. The ops' shape functions reject anything else first, so an error here (Internal)
// means the two disagree.
absl::StatusOr<FusedEpilogue> ReadFusedEpilogue(const std::vector<std::string>& fused_ops,
                                                float leakyrelu_alpha);

}  // namespace duet
