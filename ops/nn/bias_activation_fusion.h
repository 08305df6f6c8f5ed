// What _FusedMatMul, _FusedConv2D and _FusedDepthwiseConv2dNative share: the fusions their
// fused_ops attr may name and the check their shape functions make of fused_ops, num_args and the
// bias.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/shape.h"
#include "ops/shape_context.h"

namespace duet {

// The activations that may follow "BiasAdd" in fused_ops, by TensorFlow's op names.
inline constexpr absl::string_view kFusedActivations[] = {"Relu", "Relu6",   "Elu",
                                                          "Tanh", "Sigmoid", "LeakyRelu"};

// Checks the fusion of a fused op whose args (the `num_args * T` input) start at input
// `first_arg`: fused_ops must be {"BiasAdd"} or {"BiasAdd", one of kFusedActivations}, there must
// be exactly one arg, the bias, and it must be 1-D with as many elements as `output` (the op's
// output shape) has channels in its last dim. Errors name fused_ops, num_args and the shapes.
absl::Status CheckBiasActivationFusion(const ShapeContext& ctx,
                                       const std::vector<std::string>& fused_ops, int first_arg,
                                       const Shape& output);

}  // namespace duet
