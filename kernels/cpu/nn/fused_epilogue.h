// The epilogue of the fused ops (_FusedMatMul, _FusedConv2D): what they do to their product after
// computing it, + bias along the last dim and then an activation, as their fused_ops attr names
// it. oneDNN runs it inside the matmul / convolution primitive (a bias memory and an eltwise
// post-op); ApplyFusedEpilogue runs it as a loop where oneDNN computes nothing (float64).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/tensor.h"
#include "core/thread_pool.h"
#include "kernels/cpu/common/dnnl_plan.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace duet {

// The activation after the bias (TensorFlow's op names in fused_ops).
enum class FusedActivation { kNone, kRelu, kRelu6, kElu, kTanh, kSigmoid, kLeakyRelu };

struct FusedEpilogue {
  FusedActivation activation = FusedActivation::kNone;
  float leakyrelu_alpha = 0.2f;  // LeakyRelu's slope for x < 0

  // Appends what a oneDNN plan with this epilogue depends on to `key`.
  void AppendKey(DnnlKey& key) const;
  // The primitive attr with the activation as an eltwise post-op (no post-op for kNone).
  dnnl::primitive_attr DnnlAttr() const;
};

// The epilogue named by fused_ops: {"BiasAdd"} or {"BiasAdd", activation}. The ops' shape functions
// reject anything else first, so an error here (Internal) means the two lists disagree.
absl::StatusOr<FusedEpilogue> ReadFusedEpilogue(const std::vector<std::string>& fused_ops,
                                                float leakyrelu_alpha);

// out[..., c] = activation(out[..., c] + bias[c]) in place, for a float32, float64 or bfloat16
// `out` whose last dim has bias's length (bfloat16 computed in float32).
void ApplyFusedEpilogue(const FusedEpilogue& epilogue, const Tensor& bias, Tensor& out,
                        ThreadPool& pool);

}  // namespace duet
