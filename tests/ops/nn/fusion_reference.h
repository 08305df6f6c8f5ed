// What the fused ops (_FusedMatMul, _FusedConv2D) must compute, done unfused through the public op
// functions: bias_add, then the activation that fused_ops names.
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"

namespace duet::testing {

// Every fused_ops value the fused ops support: {"BiasAdd"} and {"BiasAdd", A} for each activation.
std::vector<std::vector<std::string>> SupportedFusedOps();

// activation(bias_add(product, bias)) with the activation fused_ops[1] names (none when fused_ops
// is {"BiasAdd"}), each op run on its own.
Tensor UnfusedBiasActivation(const Tensor& product, const Tensor& bias,
                             const std::vector<std::string>& fused_ops,
                             float leakyrelu_alpha = 0.2f);

}  // namespace duet::testing
