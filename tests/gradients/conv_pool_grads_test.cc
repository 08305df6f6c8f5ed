// Gradients of Conv2D, DepthwiseConv2dNative, the pooling ops and their backward ops against
// finite differences, and second-order gradients through them. Max pooling inputs are random, so
// windows have no ties and the functions are differentiable at the checked points.
#include <string>
#include <vector>

#include "ops/nn/nn_backprop_ops.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "tests/gradients/gradient_checker.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

using Tensors = std::vector<Tensor>;

// MaxPool with EXPLICIT padding (max_pool() takes SAME and VALID).
Tensor ExplicitMaxPool(const Tensor& x, std::vector<int64_t> ksize, std::vector<int64_t> strides,
                       std::vector<int64_t> pads) {
  const OpDef* op = OpRegistry::Global().Find("MaxPool");
  OpCall call(op, {x}, OpSite());
  call.attrs[op->attr_index("ksize")] = std::move(ksize);
  call.attrs[op->attr_index("strides")] = std::move(strides);
  call.attrs[op->attr_index("padding")] = std::string("EXPLICIT");
  call.attrs[op->attr_index("explicit_paddings")] = std::move(pads);
  return RunSingleOutputOp(call);
}

// ---- Conv2D ----

DUET_GRADIENT_TEST("Conv2D", "SAME stride 2") {
  CheckGradients("Conv2D",
                 [](const Tensors& x) {
                   return Tensors{conv2d(x[0], x[1], {1, 2, 2, 1}, "SAME")};
                 },
                 {RandomInput({1, 5, 5, 2}, 1), RandomInput({3, 3, 2, 3}, 2)});
}

DUET_GRADIENT_TEST("Conv2D", "SAME stride 1, batch 2, unequal window") {
  CheckGradients("Conv2D",
                 [](const Tensors& x) { return Tensors{conv2d(x[0], x[1], {1}, "SAME")}; },
                 {RandomInput({2, 4, 3, 2}, 3), RandomInput({2, 3, 2, 2}, 4)});
}

DUET_GRADIENT_TEST("Conv2D", "VALID dilation 2") {
  CheckGradients("Conv2D",
                 [](const Tensors& x) {
                   return Tensors{conv2d(x[0], x[1], {1}, "VALID", {2, 2})};
                 },
                 {RandomInput({1, 6, 5, 2}, 5), RandomInput({2, 2, 2, 2}, 6)});
}

DUET_GRADIENT_TEST("Conv2D", "VALID stride 2 with rows left over") {
  CheckGradients("Conv2D",
                 [](const Tensors& x) { return Tensors{conv2d(x[0], x[1], {2}, "VALID")}; },
                 {RandomInput({1, 6, 6, 1}, 7), RandomInput({3, 3, 1, 2}, 8)});
}

DUET_GRADIENT_TEST("Conv2D", "EXPLICIT stride 2") {
  CheckGradients(
      "Conv2D",
      [](const Tensors& x) {
        return Tensors{conv2d_explicit_padding(x[0], x[1], {2}, {0, 0, 1, 2, 2, 0, 0, 0})};
      },
      {RandomInput({1, 4, 5, 2}, 9), RandomInput({3, 2, 2, 2}, 10)});
}

// Issue 37: grouped Conv2D (4 input channels, filter in_channels 2: 2 groups of 3 outputs).
DUET_GRADIENT_TEST("Conv2D", "grouped, SAME stride 2") {
  CheckGradients("Conv2D",
                 [](const Tensors& x) { return Tensors{conv2d(x[0], x[1], {2}, "SAME")}; },
                 {RandomInput({2, 4, 5, 4}, 11), RandomInput({3, 2, 2, 6}, 12)});
  CheckSecondOrderGradients(
      "Conv2D", [](const Tensors& x) { return Tensors{conv2d(x[0], x[1], {1}, "VALID")}; },
      {RandomInput({1, 3, 3, 6}, 13), RandomInput({2, 2, 2, 3}, 14)});
}

// ---- Conv2DBackpropInput(input_sizes, filter, out_backprop) ----

DUET_GRADIENT_TEST("Conv2DBackpropInput", "SAME stride 2") {
  CheckGradients("Conv2DBackpropInput",
                 [](const Tensors& x) {
                   return Tensors{conv2d_backprop_input({1, 5, 5, 2}, x[0], x[1], {2}, "SAME")};
                 },
                 {RandomInput({3, 3, 2, 3}, 11), RandomInput({1, 3, 3, 3}, 12)});
}

DUET_GRADIENT_TEST("Conv2DBackpropInput", "VALID dilation 2") {
  CheckGradients(
      "Conv2DBackpropInput",
      [](const Tensors& x) {
        return Tensors{conv2d_backprop_input({1, 6, 5, 2}, x[0], x[1], {1}, "VALID", {2, 2})};
      },
      {RandomInput({2, 2, 2, 2}, 13), RandomInput({1, 4, 3, 2}, 14)});
}

DUET_GRADIENT_TEST("Conv2DBackpropInput", "EXPLICIT stride 2") {
  CheckGradients("Conv2DBackpropInput",
                 [](const Tensors& x) {
                   return Tensors{conv2d_backprop_input({1, 4, 5, 2}, x[0], x[1], {2}, "EXPLICIT",
                                                        {1, 1}, {0, 0, 1, 2, 2, 0, 0, 0})};
                 },
                 {RandomInput({3, 2, 2, 2}, 15), RandomInput({1, 3, 3, 2}, 16)});
}

DUET_GRADIENT_TEST("Conv2DBackpropInput", "grouped") {
  CheckGradients("Conv2DBackpropInput",
                 [](const Tensors& x) {
                   return Tensors{conv2d_backprop_input({1, 4, 4, 4}, x[0], x[1], {1}, "SAME")};
                 },
                 {RandomInput({3, 3, 2, 4}, 15), RandomInput({1, 4, 4, 4}, 16)});
}

// ---- Conv2DBackpropFilter(input, filter_sizes, out_backprop) ----

DUET_GRADIENT_TEST("Conv2DBackpropFilter", "SAME stride 2") {
  CheckGradients("Conv2DBackpropFilter",
                 [](const Tensors& x) {
                   return Tensors{conv2d_backprop_filter(x[0], {3, 3, 2, 3}, x[1], {2}, "SAME")};
                 },
                 {RandomInput({1, 5, 5, 2}, 17), RandomInput({1, 3, 3, 3}, 18)});
}

DUET_GRADIENT_TEST("Conv2DBackpropFilter", "VALID dilation 2, batch 2") {
  CheckGradients(
      "Conv2DBackpropFilter",
      [](const Tensors& x) {
        return Tensors{conv2d_backprop_filter(x[0], {2, 2, 2, 2}, x[1], {1}, "VALID", {2, 2})};
      },
      {RandomInput({2, 5, 4, 2}, 19), RandomInput({2, 3, 2, 2}, 20)});
}

DUET_GRADIENT_TEST("Conv2DBackpropFilter", "EXPLICIT stride 2") {
  CheckGradients("Conv2DBackpropFilter",
                 [](const Tensors& x) {
                   return Tensors{conv2d_backprop_filter(x[0], {3, 2, 2, 2}, x[1], {2}, "EXPLICIT",
                                                         {1, 1}, {0, 0, 1, 2, 2, 0, 0, 0})};
                 },
                 {RandomInput({1, 4, 5, 2}, 21), RandomInput({1, 3, 3, 2}, 22)});
}

DUET_GRADIENT_TEST("Conv2DBackpropFilter", "grouped") {
  CheckGradients("Conv2DBackpropFilter",
                 [](const Tensors& x) {
                   return Tensors{conv2d_backprop_filter(x[0], {2, 2, 1, 4}, x[1], {1}, "VALID")};
                 },
                 {RandomInput({1, 4, 3, 2}, 23), RandomInput({1, 3, 2, 4}, 24)});
}

// ---- DepthwiseConv2dNative(input, filter [h, w, in_c, multiplier]) ----

DUET_GRADIENT_TEST("DepthwiseConv2dNative", "SAME stride 2, multiplier 2") {
  CheckGradients(
      "DepthwiseConv2dNative",
      [](const Tensors& x) { return Tensors{depthwise_conv2d(x[0], x[1], {2}, "SAME")}; },
      {RandomInput({1, 5, 5, 2}, 61), RandomInput({3, 3, 2, 2}, 62)});
}

DUET_GRADIENT_TEST("DepthwiseConv2dNative", "SAME stride 1, multiplier 1, batch 2") {
  CheckGradients(
      "DepthwiseConv2dNative",
      [](const Tensors& x) { return Tensors{depthwise_conv2d(x[0], x[1], {1}, "SAME")}; },
      {RandomInput({2, 4, 3, 3}, 63), RandomInput({2, 3, 3, 1}, 64)});
}

DUET_GRADIENT_TEST("DepthwiseConv2dNative", "VALID dilation 2, multiplier 2") {
  CheckGradients("DepthwiseConv2dNative",
                 [](const Tensors& x) {
                   return Tensors{depthwise_conv2d(x[0], x[1], {1}, "VALID", {2, 2})};
                 },
                 {RandomInput({1, 6, 5, 2}, 65), RandomInput({2, 2, 2, 2}, 66)});
}

DUET_GRADIENT_TEST("DepthwiseConv2dNative", "VALID stride 2, multiplier 1") {
  CheckGradients(
      "DepthwiseConv2dNative",
      [](const Tensors& x) { return Tensors{depthwise_conv2d(x[0], x[1], {2}, "VALID")}; },
      {RandomInput({1, 6, 6, 2}, 67), RandomInput({3, 3, 2, 1}, 68)});
}

DUET_GRADIENT_TEST("DepthwiseConv2dNative", "EXPLICIT stride 2, multiplier 2") {
  CheckGradients("DepthwiseConv2dNative",
                 [](const Tensors& x) {
                   return Tensors{depthwise_conv2d_explicit_padding(x[0], x[1], {2},
                                                                    {0, 0, 1, 2, 2, 0, 0, 0})};
                 },
                 {RandomInput({1, 4, 5, 2}, 69), RandomInput({3, 2, 2, 2}, 70)});
}

// ---- DepthwiseConv2dNativeBackpropInput(input_sizes, filter, out_backprop) ----

DUET_GRADIENT_TEST("DepthwiseConv2dNativeBackpropInput", "SAME stride 2, multiplier 2") {
  CheckGradients(
      "DepthwiseConv2dNativeBackpropInput",
      [](const Tensors& x) {
        return Tensors{depthwise_conv2d_backprop_input({1, 5, 5, 2}, x[0], x[1], {2}, "SAME")};
      },
      {RandomInput({3, 3, 2, 2}, 71), RandomInput({1, 3, 3, 4}, 72)});
}

DUET_GRADIENT_TEST("DepthwiseConv2dNativeBackpropInput", "VALID dilation 2, multiplier 1") {
  CheckGradients("DepthwiseConv2dNativeBackpropInput",
                 [](const Tensors& x) {
                   return Tensors{depthwise_conv2d_backprop_input({1, 6, 5, 2}, x[0], x[1], {1},
                                                                  "VALID", {2, 2})};
                 },
                 {RandomInput({2, 2, 2, 1}, 73), RandomInput({1, 4, 3, 2}, 74)});
}

DUET_GRADIENT_TEST("DepthwiseConv2dNativeBackpropInput", "EXPLICIT stride 2, multiplier 2") {
  CheckGradients(
      "DepthwiseConv2dNativeBackpropInput",
      [](const Tensors& x) {
        return Tensors{depthwise_conv2d_backprop_input({1, 4, 5, 2}, x[0], x[1], {2}, "EXPLICIT",
                                                       {1, 1}, {0, 0, 1, 2, 2, 0, 0, 0})};
      },
      {RandomInput({3, 2, 2, 2}, 75), RandomInput({1, 3, 3, 4}, 76)});
}

// ---- DepthwiseConv2dNativeBackpropFilter(input, filter_sizes, out_backprop) ----

DUET_GRADIENT_TEST("DepthwiseConv2dNativeBackpropFilter", "SAME stride 2, multiplier 1") {
  CheckGradients(
      "DepthwiseConv2dNativeBackpropFilter",
      [](const Tensors& x) {
        return Tensors{depthwise_conv2d_backprop_filter(x[0], {3, 3, 2, 1}, x[1], {2}, "SAME")};
      },
      {RandomInput({1, 5, 5, 2}, 77), RandomInput({1, 3, 3, 2}, 78)});
}

DUET_GRADIENT_TEST("DepthwiseConv2dNativeBackpropFilter", "VALID dilation 2, multiplier 2") {
  CheckGradients("DepthwiseConv2dNativeBackpropFilter",
                 [](const Tensors& x) {
                   return Tensors{depthwise_conv2d_backprop_filter(x[0], {2, 2, 2, 2}, x[1], {1},
                                                                   "VALID", {2, 2})};
                 },
                 {RandomInput({2, 5, 4, 2}, 79), RandomInput({2, 3, 2, 4}, 80)});
}

DUET_GRADIENT_TEST("DepthwiseConv2dNativeBackpropFilter", "EXPLICIT stride 2, multiplier 2") {
  CheckGradients(
      "DepthwiseConv2dNativeBackpropFilter",
      [](const Tensors& x) {
        return Tensors{depthwise_conv2d_backprop_filter(x[0], {3, 2, 2, 2}, x[1], {2}, "EXPLICIT",
                                                        {1, 1}, {0, 0, 1, 2, 2, 0, 0, 0})};
      },
      {RandomInput({1, 4, 5, 2}, 81), RandomInput({1, 3, 3, 4}, 82)});
}

// ---- MaxPool, MaxPoolGrad, MaxPoolGradGrad ----

DUET_GRADIENT_TEST("MaxPool", "SAME 3x2 stride 2") {
  CheckGradients("MaxPool",
                 [](const Tensors& x) {
                   return Tensors{max_pool(x[0], {3, 2}, {2}, "SAME")};
                 },
                 {RandomInput({2, 5, 4, 2}, 23)});
}

DUET_GRADIENT_TEST("MaxPool", "VALID 2x2 stride 1") {
  CheckGradients("MaxPool",
                 [](const Tensors& x) { return Tensors{max_pool(x[0], {2}, {1}, "VALID")}; },
                 {RandomInput({1, 4, 5, 3}, 24)});
}

DUET_GRADIENT_TEST("MaxPool", "EXPLICIT 3x3 stride 2") {
  CheckGradients(
      "MaxPool",
      [](const Tensors& x) {
        return Tensors{ExplicitMaxPool(x[0], {1, 3, 3, 1}, {1, 2, 2, 1}, {0, 0, 2, 1, 1, 0, 0, 0})};
      },
      {RandomInput({1, 5, 4, 2}, 25)});
}

// orig_output is computed from orig_input, as in a real backward pass; all three inputs are
// checked (orig_input and orig_output only choose where grad goes: zero derivative).
DUET_GRADIENT_TEST("MaxPoolGrad", "SAME 3x2 stride 2") {
  CheckGradients("MaxPoolGrad",
                 [](const Tensors& x) {
                   return Tensors{max_pool_grad(x[0], max_pool(x[0], {3, 2}, {2}, "SAME"), x[1],
                                                {3, 2}, {2}, "SAME")};
                 },
                 {RandomInput({1, 5, 4, 2}, 26), RandomInput({1, 3, 2, 2}, 27)});
}

DUET_GRADIENT_TEST("MaxPoolGrad", "VALID 2x2 stride 1, orig_output as an input") {
  CheckGradients(
      "MaxPoolGrad",
      [](const Tensors& x) { return Tensors{max_pool_grad(x[0], x[1], x[2], {2}, {1}, "VALID")}; },
      {RandomInput({1, 4, 4, 2}, 28), max_pool(RandomInput({1, 4, 4, 2}, 28), {2}, {1}, "VALID"),
       RandomInput({1, 3, 3, 2}, 29)});
}

// Exercises the gradient's -inf padding in place of MaxPoolGradGrad's missing EXPLICIT padding.
DUET_GRADIENT_TEST("MaxPoolGrad", "EXPLICIT 3x3 stride 2") {
  const std::vector<int64_t> pads = {0, 0, 2, 1, 1, 0, 0, 0};
  CheckGradients("MaxPoolGrad",
                 [&](const Tensors& x) {
                   const Tensor y = ExplicitMaxPool(x[0], {1, 3, 3, 1}, {1, 2, 2, 1}, pads);
                   return Tensors{max_pool_grad(x[0], y, x[1], {3}, {2}, "EXPLICIT", pads)};
                 },
                 {RandomInput({1, 5, 4, 2}, 30), RandomInput({1, 3, 2, 2}, 31)});
}

DUET_GRADIENT_TEST("MaxPoolGradGrad", "SAME 3x2 stride 2") {
  CheckGradients("MaxPoolGradGrad",
                 [](const Tensors& x) {
                   return Tensors{max_pool_grad_grad(x[0], max_pool(x[0], {3, 2}, {2}, "SAME"),
                                                     x[1], {3, 2}, {2}, "SAME")};
                 },
                 {RandomInput({1, 5, 4, 2}, 32), RandomInput({1, 5, 4, 2}, 33)});
}

DUET_GRADIENT_TEST("MaxPoolGradGrad", "VALID 2x2 stride 1") {
  CheckGradients("MaxPoolGradGrad",
                 [](const Tensors& x) {
                   return Tensors{max_pool_grad_grad(x[0], max_pool(x[0], {2}, {1}, "VALID"), x[1],
                                                     {2}, {1}, "VALID")};
                 },
                 {RandomInput({2, 4, 3, 2}, 34), RandomInput({2, 4, 3, 2}, 35)});
}

// ---- AvgPool, AvgPoolGrad ----

DUET_GRADIENT_TEST("AvgPool", "SAME 3x2 stride 1") {
  CheckGradients("AvgPool",
                 [](const Tensors& x) {
                   return Tensors{avg_pool(x[0], {3, 2}, {1}, "SAME")};
                 },
                 {RandomInput({1, 5, 4, 2}, 36)});
}

DUET_GRADIENT_TEST("AvgPool", "SAME 3x3 stride 2") {
  CheckGradients("AvgPool",
                 [](const Tensors& x) { return Tensors{avg_pool(x[0], {3}, {2}, "SAME")}; },
                 {RandomInput({2, 5, 4, 2}, 37)});
}

DUET_GRADIENT_TEST("AvgPool", "VALID 2x3 strides 2x1") {
  CheckGradients("AvgPool",
                 [](const Tensors& x) {
                   return Tensors{avg_pool(x[0], {2, 3}, {2, 1}, "VALID")};
                 },
                 {RandomInput({1, 5, 5, 3}, 38)});
}

DUET_GRADIENT_TEST("AvgPoolGrad", "SAME 3x2 stride 2") {
  CheckGradients("AvgPoolGrad",
                 [](const Tensors& x) {
                   return Tensors{avg_pool_grad({1, 5, 4, 2}, x[0], {3, 2}, {2}, "SAME")};
                 },
                 {RandomInput({1, 3, 2, 2}, 39)});
}

DUET_GRADIENT_TEST("AvgPoolGrad", "VALID 2x2 stride 1") {
  CheckGradients("AvgPoolGrad",
                 [](const Tensors& x) {
                   return Tensors{avg_pool_grad({2, 4, 3, 1}, x[0], {2}, {1}, "VALID")};
                 },
                 {RandomInput({2, 3, 2, 1}, 40)});
}

// ---- Second order ----

// Conv2D is bilinear, so its second derivative is the cross term: d(d/dx)/df differentiates
// Conv2DBackpropInput's filter input, d(d/df)/dx Conv2DBackpropFilter's input.
TEST_CASE("Conv2D second-order gradient: SAME stride 2", "[gradient]") {
  CheckSecondOrderGradients(
      "Conv2D", [](const Tensors& x) { return Tensors{conv2d(x[0], x[1], {2}, "SAME")}; },
      {RandomInput({1, 5, 4, 2}, 41), RandomInput({3, 3, 2, 2}, 42)});
}

TEST_CASE("Conv2D second-order gradient: VALID dilation 2", "[gradient]") {
  CheckSecondOrderGradients("Conv2D",
                            [](const Tensors& x) {
                              return Tensors{conv2d(x[0], x[1], {1}, "VALID", {2, 2})};
                            },
                            {RandomInput({1, 5, 5, 1}, 43), RandomInput({2, 2, 1, 2}, 44)});
}

// Squaring the output makes the first-order gradient flow through out_backprop, so the second
// order differentiates Conv2DBackprop* in every input.
TEST_CASE("Conv2D second-order gradient through out_backprop", "[gradient]") {
  CheckSecondOrderGradients(
      "Conv2DBackpropInput",
      [](const Tensors& x) { return Tensors{square(conv2d(x[0], x[1], {2}, "SAME"))}; },
      {RandomInput({1, 4, 4, 2}, 45), RandomInput({2, 3, 2, 2}, 46)});
  CheckSecondOrderGradients(
      "Conv2DBackpropFilter",
      [](const Tensors& x) {
        return Tensors{square(conv2d_explicit_padding(x[0], x[1], {1}, {0, 0, 1, 0, 0, 1, 0, 0}))};
      },
      {RandomInput({1, 3, 4, 1}, 47), RandomInput({2, 2, 1, 2}, 48)});
}

// The depthwise convolution is bilinear too; squaring its output also differentiates its backprop
// ops in every input.
TEST_CASE("DepthwiseConv2dNative second-order gradients", "[gradient]") {
  CheckSecondOrderGradients(
      "DepthwiseConv2dNative",
      [](const Tensors& x) { return Tensors{depthwise_conv2d(x[0], x[1], {2}, "SAME")}; },
      {RandomInput({1, 5, 4, 2}, 83), RandomInput({3, 3, 2, 2}, 84)});
  CheckSecondOrderGradients(
      "DepthwiseConv2dNativeBackpropInput",
      [](const Tensors& x) {
        return Tensors{square(depthwise_conv2d(x[0], x[1], {1}, "VALID", {2, 2}))};
      },
      {RandomInput({1, 5, 4, 2}, 85), RandomInput({2, 2, 2, 2}, 86)});
  CheckSecondOrderGradients("DepthwiseConv2dNativeBackpropFilter",
                            [](const Tensors& x) {
                              return Tensors{square(depthwise_conv2d_explicit_padding(
                                  x[0], x[1], {1}, {0, 0, 1, 0, 0, 1, 0, 0}))};
                            },
                            {RandomInput({1, 3, 4, 2}, 87), RandomInput({2, 2, 2, 1}, 88)});
}

// Max pooling is piecewise linear: its second derivative is zero away from ties, which the
// MaxPoolGrad gradient (nothing to orig_input and orig_output) gives.
TEST_CASE("MaxPool second-order gradient: SAME 3x2 stride 2", "[gradient]") {
  CheckSecondOrderGradients("MaxPool",
                            [](const Tensors& x) {
                              return Tensors{max_pool(x[0], {3, 2}, {2}, "SAME")};
                            },
                            {RandomInput({1, 5, 4, 2}, 49)});
}

// square(max_pool(x)): the first-order gradient max_pool_grad(x, y, 2 y w) depends on x through
// its grad input, so the second order runs MaxPoolGradGrad.
TEST_CASE("MaxPool second-order gradient through MaxPoolGrad's grad", "[gradient]") {
  CheckSecondOrderGradients(
      "MaxPoolGrad",
      [](const Tensors& x) { return Tensors{square(max_pool(x[0], {2}, {1}, "VALID"))}; },
      {RandomInput({1, 4, 3, 2}, 50)});
  const std::vector<int64_t> pads = {0, 0, 1, 1, 0, 1, 0, 0};
  CheckSecondOrderGradients(
      "MaxPoolGrad",
      [&](const Tensors& x) {
        return Tensors{square(ExplicitMaxPool(x[0], {1, 2, 2, 1}, {1, 2, 2, 1}, pads))};
      },
      {RandomInput({1, 4, 3, 2}, 51)});
}

// Third order: MaxPoolGrad's grad gradient is MaxPoolGradGrad, whose gradient is MaxPoolGrad.
TEST_CASE("MaxPoolGradGrad second-order gradient", "[gradient]") {
  CheckSecondOrderGradients(
      "MaxPoolGradGrad",
      [](const Tensors& x) {
        return Tensors{square(
            max_pool_grad(x[0], max_pool(x[0], {3, 2}, {2}, "SAME"), x[1], {3, 2}, {2}, "SAME"))};
      },
      {RandomInput({1, 5, 4, 2}, 52), RandomInput({1, 3, 2, 2}, 53)});
}

TEST_CASE("AvgPool second-order gradient", "[gradient]") {
  CheckSecondOrderGradients("AvgPool",
                            [](const Tensors& x) {
                              return Tensors{avg_pool(x[0], {3, 2}, {2}, "SAME")};
                            },
                            {RandomInput({1, 5, 4, 2}, 54)});
  // Squared, so that the first-order gradient's AvgPoolGrad is differentiated.
  CheckSecondOrderGradients("AvgPoolGrad",
                            [](const Tensors& x) {
                              return Tensors{square(avg_pool(x[0], {2, 3}, {1, 2}, "VALID"))};
                            },
                            {RandomInput({2, 4, 5, 1}, 55)});
}

}  // namespace
}  // namespace duet::testing
