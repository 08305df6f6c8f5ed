// Gradients of the 3-D convolution and pooling ops (Conv3D, MaxPool3D, AvgPool3D and their
// backward ops) against finite differences; conv_pool_grads_test.cc has the 2-D ones.
//
// MaxPool3D and MaxPool3DGrad have no float64 (as in TensorFlow), so their checks cast the float64
// inputs to float32 and back, with a step of 1e-2 and inputs spaced 1/8 apart: max pooling is
// linear between ties, so the differences are exact up to float32 rounding.
#include <string>
#include <vector>

#include "ops/nn/nn_backprop_ops.h"
#include "tests/gradients/gradient_checker.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

using Tensors = std::vector<Tensor>;

// Distinct eighths (prime modulus above the element count): no two cells of a window within 2e-2.
Tensor Spaced(const Shape& shape, int mul) {
  return MakeTensor(kFloat64, shape, ModPattern(shape.num_elements(), mul, 151, 75, 8));
}

Tensor F32(const Tensor& x) { return cast(x, kFloat32); }
Tensor F64(const Tensor& x) { return cast(x, kFloat64); }

// ---- Conv3D, Conv3DBackpropInputV2, Conv3DBackpropFilterV2 ----

DUET_GRADIENT_TEST("Conv3D", "SAME strides 2x1x2, batch 2") {
  CheckGradients("Conv3D",
                 [](const Tensors& x) {
                   return Tensors{conv3d(x[0], x[1], {2, 1, 2}, "SAME")};
                 },
                 {RandomInput({2, 3, 3, 4, 2}, 201), RandomInput({2, 3, 2, 2, 3}, 202)});
}

DUET_GRADIENT_TEST("Conv3D", "VALID dilations 2x1x2") {
  CheckGradients("Conv3D",
                 [](const Tensors& x) {
                   return Tensors{conv3d(x[0], x[1], {1}, "VALID", {2, 1, 2})};
                 },
                 {RandomInput({1, 4, 3, 5, 2}, 203), RandomInput({2, 2, 2, 2, 2}, 204)});
}

DUET_GRADIENT_TEST("Conv3DBackpropInputV2", "SAME stride 2") {
  CheckGradients("Conv3DBackpropInputV2",
                 [](const Tensors& x) {
                   return Tensors{conv3d_backprop_input({1, 3, 4, 3, 2}, x[0], x[1], {2}, "SAME")};
                 },
                 {RandomInput({2, 3, 2, 2, 3}, 205), RandomInput({1, 2, 2, 2, 3}, 206)});
}

DUET_GRADIENT_TEST("Conv3DBackpropInputV2", "VALID dilations 1x2x1") {
  CheckGradients(
      "Conv3DBackpropInputV2",
      [](const Tensors& x) {
        return Tensors{conv3d_backprop_input({1, 3, 5, 3, 2}, x[0], x[1], {1}, "VALID", {1, 2, 1})};
      },
      {RandomInput({2, 2, 2, 2, 2}, 207), RandomInput({1, 2, 3, 2, 2}, 208)});
}

DUET_GRADIENT_TEST("Conv3DBackpropFilterV2", "SAME stride 2") {
  CheckGradients("Conv3DBackpropFilterV2",
                 [](const Tensors& x) {
                   return Tensors{conv3d_backprop_filter(x[0], {2, 3, 2, 2, 3}, x[1], {2}, "SAME")};
                 },
                 {RandomInput({1, 3, 4, 3, 2}, 209), RandomInput({1, 2, 2, 2, 3}, 210)});
}

DUET_GRADIENT_TEST("Conv3DBackpropFilterV2", "VALID dilations 1x2x1, batch 2") {
  CheckGradients("Conv3DBackpropFilterV2",
                 [](const Tensors& x) {
                   return Tensors{conv3d_backprop_filter(x[0], {2, 2, 2, 2, 2}, x[1], {1}, "VALID",
                                                         {1, 2, 1})};
                 },
                 {RandomInput({2, 3, 5, 3, 2}, 211), RandomInput({2, 2, 3, 2, 2}, 212)});
}

// ---- MaxPool3D, MaxPool3DGrad, MaxPool3DGradGrad ----

DUET_GRADIENT_TEST("MaxPool3D", "SAME 2x3x2 stride 2, batch 2") {
  CheckGradients(
      "MaxPool3D",
      [](const Tensors& x) {
        return Tensors{F64(max_pool3d(F32(x[0]), {2, 3, 2}, {2}, "SAME"))};
      },
      {Spaced({2, 3, 4, 3, 2}, 37)}, Float32GradientCheck());
}

DUET_GRADIENT_TEST("MaxPool3D", "VALID 2x2x2 strides 1x2x1") {
  CheckGradients(
      "MaxPool3D",
      [](const Tensors& x) {
        return Tensors{F64(max_pool3d(F32(x[0]), {2}, {1, 2, 1}, "VALID"))};
      },
      {Spaced({1, 3, 5, 4, 3}, 41)}, Float32GradientCheck());
}

// orig_output is computed from orig_input, as in a real backward pass; orig_input gets a zero
// derivative (it only chooses where grad goes), grad a linear one.
DUET_GRADIENT_TEST("MaxPool3DGrad", "SAME 2x3x2 stride 2") {
  CheckGradients(
      "MaxPool3DGrad",
      [](const Tensors& x) {
        const Tensor in = F32(x[0]);
        const Tensor y = max_pool3d(in, {2, 3, 2}, {2}, "SAME");
        return Tensors{F64(max_pool3d_grad(in, y, F32(x[1]), {2, 3, 2}, {2}, "SAME"))};
      },
      {Spaced({1, 3, 4, 3, 2}, 37), RandomInput({1, 2, 2, 2, 2}, 301)}, Float32GradientCheck());
}

DUET_GRADIENT_TEST("MaxPool3DGradGrad", "VALID 2x2x2 stride 1") {
  CheckGradients(
      "MaxPool3DGradGrad",
      [](const Tensors& x) {
        const Tensor in = F32(x[0]);
        const Tensor y = max_pool3d(in, {2}, {1}, "VALID");
        return Tensors{F64(max_pool3d_grad_grad(in, y, F32(x[1]), {2}, {1}, "VALID"))};
      },
      {Spaced({2, 3, 3, 3, 2}, 43), RandomInput({2, 3, 3, 3, 2}, 302)}, Float32GradientCheck());
}

// ---- AvgPool3D, AvgPool3DGrad (float64) ----

DUET_GRADIENT_TEST("AvgPool3D", "SAME 3x2x3 strides 2x1x2") {
  CheckGradients("AvgPool3D",
                 [](const Tensors& x) {
                   return Tensors{avg_pool3d(x[0], {3, 2, 3}, {2, 1, 2}, "SAME")};
                 },
                 {RandomInput({2, 4, 3, 5, 2}, 303)});
}

DUET_GRADIENT_TEST("AvgPool3D", "VALID 2x2x2 stride 1") {
  CheckGradients("AvgPool3D",
                 [](const Tensors& x) { return Tensors{avg_pool3d(x[0], {2}, {1}, "VALID")}; },
                 {RandomInput({1, 3, 4, 3, 3}, 304)});
}

DUET_GRADIENT_TEST("AvgPool3DGrad", "SAME 3x2x3 strides 2x1x2") {
  CheckGradients(
      "AvgPool3DGrad",
      [](const Tensors& x) {
        return Tensors{avg_pool3d_grad({2, 4, 3, 5, 2}, x[0], {3, 2, 3}, {2, 1, 2}, "SAME")};
      },
      {RandomInput({2, 2, 3, 3, 2}, 305)});
}

// ---- Second order ----

// Conv3D is bilinear: its second derivative is the cross term through its backprop ops, and
// squaring the output differentiates them in every input.
TEST_CASE("Conv3D second-order gradients", "[gradient]") {
  CheckSecondOrderGradients(
      "Conv3D", [](const Tensors& x) { return Tensors{conv3d(x[0], x[1], {2}, "SAME")}; },
      {RandomInput({1, 3, 3, 4, 2}, 220), RandomInput({2, 2, 2, 2, 2}, 221)});
  CheckSecondOrderGradients("Conv3DBackpropInputV2",
                            [](const Tensors& x) {
                              return Tensors{square(conv3d(x[0], x[1], {1, 2, 1}, "SAME"))};
                            },
                            {RandomInput({1, 2, 4, 3, 1}, 222), RandomInput({2, 2, 1, 1, 2}, 223)});
  CheckSecondOrderGradients("Conv3DBackpropFilterV2",
                            [](const Tensors& x) {
                              return Tensors{square(conv3d(x[0], x[1], {1}, "VALID", {2, 1, 1}))};
                            },
                            {RandomInput({1, 3, 3, 3, 2}, 224), RandomInput({2, 2, 1, 2, 1}, 225)});
}

// Squared, so that the first-order gradient's MaxPool3DGrad is differentiated in its grad input
// (through MaxPool3DGradGrad), and AvgPool3DGrad in its.
TEST_CASE("3-D pooling second-order gradients", "[gradient]") {
  CheckSecondOrderGradients(
      "MaxPool3DGrad",
      [](const Tensors& x) {
        return Tensors{F64(square(max_pool3d(F32(x[0]), {2}, {1}, "VALID")))};
      },
      {Spaced({1, 3, 3, 4, 2}, 37)}, Float32GradientCheck());
  CheckSecondOrderGradients("AvgPool3DGrad",
                            [](const Tensors& x) {
                              return Tensors{square(avg_pool3d(x[0], {2}, {1, 2, 1}, "SAME"))};
                            },
                            {RandomInput({1, 3, 4, 3, 2}, 306)});
}

}  // namespace
}  // namespace duet::testing
