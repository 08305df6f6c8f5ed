// Gradients of the channels-first (NCHW) image ops against float64 finite differences, eagerly
// and in graphs (Note [Channels-first] in ops/channels_first.cc): each is its channels-last
// twin's gradient between transposes, so these check the permutation of inputs, attrs and
// gradients, and that it differentiates again.
#include <vector>

#include "ops/nn/nn_backprop_ops.h"
#include "tests/gradients/gradient_checker.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

using Tensors = std::vector<Tensor>;
constexpr DataFormat kNCHW = DataFormat::kNCHW;

DUET_GRADIENT_TEST("Conv2D", "NCHW, strides 1x2, SAME") {
  CheckGradients("Conv2D",
                 [](const Tensors& x) {
                   return Tensors{conv2d(x[0], x[1], {1, 2}, "SAME", kNCHW)};
                 },
                 {RandomInput({2, 2, 5, 6}, 1), RandomInput({3, 2, 2, 3}, 2)});
}

DUET_GRADIENT_TEST("Conv2D", "NCHW, 4-entry strides in NCHW order, VALID, dilation 2") {
  CheckGradients("Conv2D",
                 [](const Tensors& x) {
                   return Tensors{conv2d(x[0], x[1], {1, 1, 2, 1}, "VALID", kNCHW, {1, 1, 1, 2})};
                 },
                 {RandomInput({1, 2, 6, 7}, 3), RandomInput({2, 2, 2, 2}, 4)});
}

DUET_GRADIENT_TEST("Conv2D", "NCHW, second order") {
  CheckSecondOrderGradients("Conv2D",
                            [](const Tensors& x) {
                              return Tensors{conv2d(x[0], x[1], {2, 1}, "SAME", kNCHW)};
                            },
                            {RandomInput({1, 2, 4, 3}, 5), RandomInput({2, 2, 2, 2}, 6)});
}

DUET_GRADIENT_TEST("DepthwiseConv2dNative", "NCHW, multiplier 2") {
  CheckGradients(
      "DepthwiseConv2dNative",
      [](const Tensors& x) { return Tensors{depthwise_conv2d(x[0], x[1], {1}, "SAME", kNCHW)}; },
      {RandomInput({1, 3, 4, 5}, 7), RandomInput({2, 3, 3, 2}, 8)});
}

DUET_GRADIENT_TEST("MaxPool", "NCHW 2x3 window, stride 2x1") {
  CheckGradients("MaxPool",
                 [](const Tensors& x) {
                   return Tensors{max_pool(x[0], {2, 3}, {2, 1}, "SAME", kNCHW)};
                 },
                 {RandomInput({2, 3, 5, 6}, 9)});
}

DUET_GRADIENT_TEST("MaxPool", "NCHW, second order") {
  CheckSecondOrderGradients(
      "MaxPool", [](const Tensors& x) { return Tensors{max_pool(x[0], {2}, {2}, "VALID", kNCHW)}; },
      {RandomInput({1, 2, 4, 4}, 10)});
}

DUET_GRADIENT_TEST("AvgPool", "NCHW 3x2 window, SAME") {
  CheckGradients("AvgPool",
                 [](const Tensors& x) {
                   return Tensors{avg_pool(x[0], {3, 2}, {1, 2}, "SAME", kNCHW)};
                 },
                 {RandomInput({1, 2, 5, 4}, 11)});
}

DUET_GRADIENT_TEST("BiasAdd", "NCHW, and 3-D (N, C, W)") {
  CheckGradients("BiasAdd",
                 [](const Tensors& x) {
                   return Tensors{bias_add(x[0], x[1], kNCHW), bias_add(x[2], x[1], kNCHW)};
                 },
                 {RandomInput({2, 3, 2, 4}, 12), RandomInput({3}, 13), RandomInput({2, 3, 5}, 14)});
}

DUET_GRADIENT_TEST("FusedBatchNormV3", "NCHW, training") {
  CheckGradients("FusedBatchNormV3",
                 [](const Tensors& x) {
                   const FusedBatchNormResult r =
                       fused_batch_norm(x[0], x[1], x[2], x[3], x[4], 1e-3f,
                                        /*is_training=*/true, kNCHW);
                   return Tensors{r.y, r.batch_mean, r.batch_variance};
                 },
                 {RandomInput({2, 3, 2, 3}, 15), RandomInput({3}, 16, 0.5, 1.5),
                  RandomInput({3}, 17), RandomInput({3}, 23), RandomInput({3}, 24, 0.5, 1.5)});
}

DUET_GRADIENT_TEST("FusedBatchNormV3", "NCHW, inference") {
  CheckGradients("FusedBatchNormV3",
                 [](const Tensors& x) {
                   return Tensors{fused_batch_norm(x[0], x[1], x[2], x[3], x[4], 1e-3f,
                                                   /*is_training=*/false, kNCHW)
                                      .y};
                 },
                 {RandomInput({2, 2, 3, 2}, 18), RandomInput({2}, 19, 0.5, 1.5),
                  RandomInput({2}, 20), RandomInput({2}, 21), RandomInput({2}, 22, 0.5, 1.5)});
}

}  // namespace
}  // namespace duet::testing
