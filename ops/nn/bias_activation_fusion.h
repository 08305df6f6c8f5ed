// What _FusedMatMul, _FusedConv2D and _FusedDepthwiseConv2dNative share: the fusions their
// fused_ops attr may name and the check their shape functions make of fused_ops, num_args and the
// args.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/shape.h"
#include "ops/shape_context.h"

namespace duet {

// The activations that may end fused_ops, by TensorFlow's op names.
inline constexpr absl::string_view kFusedActivations[] = {"Relu", "Relu6",   "Elu",
                                                          "Tanh", "Sigmoid", "LeakyRelu"};

// Checks the fusion of a fused op whose args (the `num_args * T` input) start at input
// `first_arg`: fused_ops must be "BiasAdd", then optionally "Add", then optionally one of
// kFusedActivations. args[0] is the bias, 1-D with as many elements as `output` (the op's output
// shape) has channels in its last dim; with "Add", args[1] is the residual, of `output`'s shape.
// Errors name fused_ops, num_args and the shapes.
absl::Status CheckBiasActivationFusion(const ShapeContext& ctx,
                                       const std::vector<std::string>& fused_ops, int first_arg,
                                       const Shape& output);

}  // namespace duet
