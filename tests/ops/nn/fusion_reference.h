// What the fused ops (_FusedMatMul, _FusedConv2D, _FusedDepthwiseConv2dNative) must compute, done
// unfused through the public op functions: bias_add, then the residual add when fused_ops has
// "Add", then the activation that fused_ops names.
#pragma once

#include <string>
#include <vector>

#include "absl/types/span.h"
#include "core/tensor.h"

namespace duet::testing {

// Every fused_ops value the fused ops support: "BiasAdd", with or without "Add", with no
// activation or each one.
std::vector<std::vector<std::string>> SupportedFusedOps();

// The args `fused_ops` takes for a product of shape `out`: {bias}, or {bias, residual} when it
// adds one (a residual of `out`'s shape and bias's dtype, from a fixed pattern of mixed signs).
std::vector<Tensor> FusionArgs(const std::vector<std::string>& fused_ops, const Tensor& bias,
                               const Shape& out);

// activation(bias_add(product, args[0]) (+ args[1])) with the activation fused_ops ends with, if
// any, each op run on its own.
Tensor UnfusedEpilogue(const Tensor& product, absl::Span<const Tensor> args,
                       const std::vector<std::string>& fused_ops, float leakyrelu_alpha = 0.2f);

}  // namespace duet::testing
