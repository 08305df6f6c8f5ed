// Op functions of the fused ops that the graph fusion passes produce: TensorFlow's internal
// _FusedMatMul, _FusedConv2D and _FusedDepthwiseConv2dNative (a product, plus a bias along its
// last dim, then an optional activation, in one kernel), and duet's
// _ResourceApplyMatMulGradientDescent. Not in duet.h: models write matmul/conv2d, bias_add and the
// activation, and the pass fuses them; these functions serve the pass and tests.
//
// `fused_ops` is {"BiasAdd"} or {"BiasAdd", A} with A one of Relu, Relu6, Elu, Tanh, Sigmoid,
// LeakyRelu (negative slope `leakyrelu_alpha`), and `args` is {bias}, 1-D with one value per output
// channel (the output's last dim). float32, float64, bfloat16. Throw duet::Error, naming the op,
// fused_ops and the shapes, on any other fusion, bias shape or arg count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet {

// A(op(a) x op(b) + bias) for 2-D a and b (op _FusedMatMul); op transposes when transpose_a/b.
Tensor fused_matmul(const Tensor& a, const Tensor& b, absl::Span<const Tensor> args,
                    std::vector<std::string> fused_ops, bool transpose_a = false,
                    bool transpose_b = false, float leakyrelu_alpha = 0.2f, OpSite site = {});

// A(conv2d(input, filter) + bias) (op _FusedConv2D): NHWC input, HWIO filter; strides, padding and
// dilations as conv2d takes them, and padding "EXPLICIT" with `explicit_paddings`
// [0, 0, top, bottom, left, right, 0, 0].
Tensor fused_conv2d(const Tensor& input, const Tensor& filter, absl::Span<const Tensor> args,
                    std::vector<std::string> fused_ops, std::vector<int64_t> strides,
                    std::string padding, std::vector<int64_t> dilations = {1, 1, 1, 1},
                    std::vector<int64_t> explicit_paddings = {}, float leakyrelu_alpha = 0.2f,
                    OpSite site = {});

// A(depthwise_conv2d(input, filter) + bias) (op _FusedDepthwiseConv2dNative): NHWC input, filter
// [k_h, k_w, in_channels, multiplier], bias of in_channels * multiplier values; strides, padding
// ("SAME" or "VALID": TensorFlow's op has no explicit paddings) and dilations as depthwise_conv2d
// takes them.
Tensor fused_depthwise_conv2d(const Tensor& input, const Tensor& filter,
                              absl::Span<const Tensor> args, std::vector<std::string> fused_ops,
                              std::vector<int64_t> strides, std::string padding,
                              std::vector<int64_t> dilations = {1, 1, 1, 1},
                              float leakyrelu_alpha = 0.2f, OpSite site = {});

// variable -= alpha * op(a) x op(b) for 2-D a and b (op _ResourceApplyMatMulGradientDescent, which
// the fuse_gradient_update pass makes from ResourceApplyGradientDescent of a MatMul): the product
// is accumulated into the variable, never materialized. float32 and float64; alpha is a scalar
// and the product's shape and dtype must be the variable's. Copies on write like the unfused
// update (Note [Variables copy on write]).
void resource_apply_matmul_gradient_descent(const Tensor& resource, const Tensor& alpha,
                                            const Tensor& a, const Tensor& b,
                                            bool transpose_a = false, bool transpose_b = false,
                                            OpSite site = {});

}  // namespace duet
