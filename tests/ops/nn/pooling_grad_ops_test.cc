// MaxPoolGrad / AvgPoolGrad / MaxPoolGradGrad through max_pool_grad() / avg_pool_grad() /
// max_pool_grad_grad(): values vs NumPy loops (first maximum in row-major order wins ties, as in
// TensorFlow), tie handling on every path, the adjoint identities, oneDNN (float32, bfloat16) vs
// the float64 loops, and shape errors.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/constant.h"
#include "ops/nn/nn_backprop_ops.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::Dot;
using testing::MakeTensor;
using testing::ModPattern;
using testing::ToDoubles;

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

// The (1, 5, 4, 2) input of pooling_test.cc: quarters in [-1.25, 1.25], with ties in many windows.
Tensor Input(DType dt) { return MakeTensor(dt, {1, 5, 4, 2}, ModPattern(40, 7, 11, 5, 4)); }
// Upstream gradients: halves.
Tensor Grad(DType dt, const Shape& s) {
  return MakeTensor(dt, s, ModPattern(s.num_elements(), 3, 7, 3, 2));
}

// Expected values below come from direct NumPy loops over each window's in-bounds cells (TF's
// SAME rule: total = max((out - 1) * stride + window - in, 0), total / 2 before), written
// independently of the kernels.
TEST_CASE("MaxPoolGrad matches NumPy, the first maximum of a window taking its gradient") {
  for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
    INFO(DTypeName(dt));
    const Tensor x = Input(dt);
    const Tensor y_same = max_pool(x, {3, 2}, {2}, "SAME");
    testing::ExpectTensor(max_pool_grad(x, y_same, Grad(dt, {1, 3, 2, 2}), {3, 2}, {2}, "SAME"), dt,
                          {1, 5, 4, 2},
                          {0, 0, 0, 0, 0,   0, 0, 0, 0, 0, -1.5, 0, 0, 0, 2, -0.5, 0, 0, 0, 0, 0,
                           0, 0, 0, 0, 0.5, 1, 0, 0, 0, 0, -1.5, 0, 0, 0, 0, -0.5, 0, 0, 1});
    const Tensor y_valid = max_pool(x, {3, 2}, {1}, "VALID");
    testing::ExpectTensor(
        max_pool_grad(x, y_valid, Grad(dt, {1, 3, 3, 2}), {3, 2}, {1}, "VALID"), dt, {1, 5, 4, 2},
        {0,   0, 0, -0.5, 0, 0,  0,   0, 0, 0,   0, 0, 0, 0, 0.5, 0, 0, 0, -1.5, 0,
         1.5, 0, 0, -1,   0, -1, 0.5, 0, 0, 1.5, 0, 1, 0, 0, -1,  0, 0, 0, 0,    -0.5});
    const std::vector<int64_t> pads = {0, 0, 2, 1, 1, 0, 0, 0};
    const Tensor y_explicit = ExplicitMaxPool(x, {1, 3, 2, 1}, {1, 2, 2, 1}, pads);
    testing::ExpectTensor(
        max_pool_grad(x, y_explicit, Grad(dt, {1, 3, 2, 2}), {3, 2}, {2}, "EXPLICIT", pads), dt,
        {1, 5, 4, 2}, {-1.5, 0, 0, -2, 1.5, 0,   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,    -1, 0, 0,
                       0.5,  0, 0, 0,  0,   1.5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0.5, 1,  0, 0});
  }
}

TEST_CASE("AvgPoolGrad matches NumPy, leaving SAME padding out of the counts") {
  for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
    INFO(DTypeName(dt));
    const double tol = dt == kBFloat16 ? 1e-2 : 1e-6;
    testing::ExpectTensor(avg_pool_grad({1, 5, 4, 2}, Grad(dt, {1, 5, 4, 2}), {3, 2}, {1}, "SAME"),
                          dt, {1, 5, 4, 2}, {-0.375,        0.25,          -0.0833333333,
                                             0.291666667,   0.375,         -0.125,
                                             -0.166666667,  -0.916666667,  -0.125,
                                             0.166666667,   0.333333333,   0.0416666667,
                                             0.625,         -0.541666667,  -0.0833333333,
                                             -0.666666667,  0.166666667,   0.333333333,
                                             0.0833333333,  0.416666667,   -0.416666667,
                                             -0.0833333333, -0.333333333,  0.166666667,
                                             0.416666667,   -0.166666667,  0.541666667,
                                             -0.625,        -0.0416666667, -0.333333333,
                                             0.0833333333,  0.958333333,   0.166666667,
                                             -0.0833333333, 0.125,         -0.375,
                                             -0.291666667,  0.0833333333,  0,
                                             0.708333333},
                          tol);
    testing::ExpectTensor(avg_pool_grad({1, 5, 4, 2}, Grad(dt, {1, 3, 2, 2}), {3, 2}, {2}, "SAME"),
                          dt, {1, 5, 4, 2},
                          {-0.375,
                           0,
                           -0.375,
                           0,
                           0.375,
                           -0.125,
                           0.375,
                           -0.125,
                           -0.208333333,
                           -0.166666667,
                           -0.208333333,
                           -0.166666667,
                           0.458333333,
                           -0.375,
                           0.458333333,
                           -0.375,
                           0.166666667,
                           -0.166666667,
                           0.166666667,
                           -0.166666667,
                           0.0833333333,
                           -0.25,
                           0.0833333333,
                           -0.25,
                           0.166666667,
                           0.208333333,
                           0.166666667,
                           0.208333333,
                           -0.0416666667,
                           0,
                           -0.0416666667,
                           0,
                           0,
                           0.375,
                           0,
                           0.375,
                           -0.125,
                           0.25,
                           -0.125,
                           0.25},
                          tol);
    testing::ExpectTensor(avg_pool_grad({1, 5, 4, 2}, Grad(dt, {1, 2, 2, 2}), {3, 2}, {2}, "VALID"),
                          dt, {1, 5, 4, 2}, {-0.25,         0,
                                             -0.25,         0,
                                             0.25,          -0.0833333333,
                                             0.25,          -0.0833333333,
                                             -0.25,         0,
                                             -0.25,         0,
                                             0.25,          -0.0833333333,
                                             0.25,          -0.0833333333,
                                             -0.0833333333, -0.166666667,
                                             -0.0833333333, -0.166666667,
                                             0.333333333,   -0.333333333,
                                             0.333333333,   -0.333333333,
                                             0.166666667,   -0.166666667,
                                             0.166666667,   -0.166666667,
                                             0.0833333333,  -0.25,
                                             0.0833333333,  -0.25,
                                             0.166666667,   -0.166666667,
                                             0.166666667,   -0.166666667,
                                             0.0833333333,  -0.25,
                                             0.0833333333,  -0.25},
                          tol);
  }
}

TEST_CASE("MaxPoolGradGrad matches NumPy: grad at each window's first maximum") {
  for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
    INFO(DTypeName(dt));
    const Tensor x = Input(dt);
    const Tensor g = Grad(dt, {1, 5, 4, 2});
    testing::ExpectTensor(
        max_pool_grad_grad(x, max_pool(x, {3, 2}, {2}, "SAME"), g, {3, 2}, {2}, "SAME"), dt,
        {1, 3, 2, 2}, {-0.5, -0.5, -1.5, 0, -1, 1, -1.5, -0.5, 0.5, 1, 0, 1});
    testing::ExpectTensor(
        max_pool_grad_grad(x, max_pool(x, {3, 2}, {1}, "VALID"), g, {3, 2}, {1}, "VALID"), dt,
        {1, 3, 3, 2},
        {1, -0.5, 0.5, -0.5, -1.5, 1.5, -1, 1, -1.5, 0, -1.5, -0.5, 0.5, 1, 0, 1.5, 0, 1});
  }
}

TEST_CASE("Max pooling gradients go to the first of tied maxima on every path") {
  for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
    INFO(DTypeName(dt));
    // All cells tie: each window's first in-bounds cell (row-major) takes its gradient.
    const Tensor x = ones({1, 4, 4, 1}, dt);
    const Tensor g = MakeTensor(dt, {1, 2, 2, 1}, {1, 2, 3, 4});
    testing::ExpectTensor(max_pool_grad(x, max_pool(x, {2}, {2}, "VALID"), g, {2}, {2}, "VALID"),
                          dt, {1, 4, 4, 1}, {1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4, 0, 0, 0, 0, 0});
    // SAME, window 3, stride 2 on 4x4: one padding row/column after, so windows start at 0 and 2.
    testing::ExpectTensor(max_pool_grad(x, max_pool(x, {3}, {2}, "SAME"), g, {3}, {2}, "SAME"), dt,
                          {1, 4, 4, 1}, {1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4, 0, 0, 0, 0, 0});
    // Windows 3x3 at stride 1 with SAME padding 1 before: the first in-bounds cell of the window
    // at (i, j) is (max(i - 1, 0), max(j - 1, 0)); g16 at (i, j) is 4 i + j.
    const Tensor g16 = MakeTensor(dt, {1, 4, 4, 1}, ModPattern(16, 1, 16, 0, 1));
    testing::ExpectTensor(max_pool_grad(x, max_pool(x, {3}, {1}, "SAME"), g16, {3}, {1}, "SAME"),
                          dt, {1, 4, 4, 1},
                          {10, 8, 10, 0, 17, 10, 11, 0, 25, 14, 15, 0, 0, 0, 0, 0});
    // MaxPoolGradGrad reads grad where MaxPoolGrad writes it.
    testing::ExpectTensor(
        max_pool_grad_grad(x, max_pool(x, {3}, {1}, "SAME"), g16, {3}, {1}, "SAME"), dt,
        {1, 4, 4, 1}, {0, 0, 1, 2, 0, 0, 1, 2, 4, 4, 5, 6, 8, 8, 9, 10});
  }
}

// Cases for the identity and agreement checks: SAME/VALID, strides 1 to 3, unequal windows.
struct PoolCase {
  std::string name;
  Shape input;
  std::vector<int64_t> ksize, strides;
  std::string padding;
};

std::vector<PoolCase> PoolCases() {
  return {{"SAME 3x3 stride 1", {2, 6, 5, 3}, {3, 3}, {1, 1}, "SAME"},
          {"SAME 3x2 stride 2", {2, 7, 6, 3}, {3, 2}, {2, 2}, "SAME"},
          {"SAME 2x2 strides 2x3", {1, 7, 8, 2}, {2, 2}, {2, 3}, "SAME"},
          {"VALID 2x2 stride 2", {1, 8, 6, 4}, {2, 2}, {2, 2}, "VALID"},
          {"VALID 1x1 stride 3", {1, 7, 8, 3}, {1, 1}, {3, 3}, "VALID"},
          {"VALID 3x3 stride 2", {2, 9, 8, 2}, {3, 3}, {2, 2}, "VALID"}};
}

// Inputs with many ties (values repeat every 5) and distinct gradients.
Tensor TiedInput(DType dt, const Shape& s) {
  return MakeTensor(dt, s, ModPattern(s.num_elements(), 3, 5, 2, 2));
}
Tensor CaseGrad(DType dt, const Shape& s) {
  return MakeTensor(dt, s, ModPattern(s.num_elements(), 7, 13, 6, 4));
}

TEST_CASE("MaxPoolGrad/MaxPoolGradGrad and AvgPool/AvgPoolGrad are adjoint pairs") {
  for (const PoolCase& c : PoolCases()) {
    INFO(c.name);
    const Tensor x = TiedInput(kFloat64, c.input);
    const Tensor y = max_pool(x, c.ksize, c.strides, c.padding);
    const Tensor g = CaseGrad(kFloat64, y.shape());
    const Tensor h = Grad(kFloat64, c.input);
    CHECK(Dot(max_pool_grad(x, y, g, c.ksize, c.strides, c.padding), h) ==
          Approx(Dot(g, max_pool_grad_grad(x, y, h, c.ksize, c.strides, c.padding))));
    CHECK(Dot(avg_pool(h, c.ksize, c.strides, c.padding), g) ==
          Approx(Dot(h, avg_pool_grad(c.input, g, c.ksize, c.strides, c.padding))));
  }
}

TEST_CASE("oneDNN float32 and bfloat16 pooling gradients agree with the float64 loops") {
  for (const PoolCase& c : PoolCases()) {
    INFO(c.name);
    const Tensor x64 = TiedInput(kFloat64, c.input);
    const Tensor y64 = max_pool(x64, c.ksize, c.strides, c.padding);
    const Tensor g64 = CaseGrad(kFloat64, y64.shape());
    const Tensor want_max = max_pool_grad(x64, y64, g64, c.ksize, c.strides, c.padding);
    const Tensor want_avg = avg_pool_grad(c.input, g64, c.ksize, c.strides, c.padding);
    for (DType dt : {kFloat32, kFloat32, kBFloat16}) {  // float32 twice: the cached plan re-binds
      INFO(DTypeName(dt));
      const double tol = dt == kBFloat16 ? 2e-2 : 1e-6;
      const Tensor x = TiedInput(dt, c.input);
      const Tensor y = max_pool(x, c.ksize, c.strides, c.padding);
      const Tensor g = CaseGrad(dt, y.shape());
      testing::ExpectTensor(max_pool_grad(x, y, g, c.ksize, c.strides, c.padding), dt, c.input,
                            ToDoubles(want_max), tol);
      testing::ExpectTensor(avg_pool_grad(c.input, g, c.ksize, c.strides, c.padding), dt, c.input,
                            ToDoubles(want_avg), tol);
    }
  }
}

TEST_CASE("Pooling gradients of empty tensors") {
  for (DType dt : {kFloat32, kFloat64}) {
    INFO(DTypeName(dt));
    const Tensor x = zeros({0, 4, 4, 2}, dt);
    const Tensor y = max_pool(x, {2}, {2}, "VALID");
    CHECK(max_pool_grad(x, y, y, {2}, {2}, "VALID").shape() == Shape{0, 4, 4, 2});
    CHECK(avg_pool_grad({0, 4, 4, 2}, y, {2}, {2}, "VALID").shape() == Shape{0, 4, 4, 2});
    CHECK(max_pool_grad_grad(x, y, x, {2}, {2}, "VALID").shape() == Shape{0, 2, 2, 2});
  }
}

TEST_CASE("Pooling gradient shape errors name the shapes") {
  const Tensor x = Input(kFloat32);
  const Tensor y = max_pool(x, {3, 2}, {2}, "SAME");  // (1, 3, 2, 2)
  testing::ExpectError(
      [&] {
        max_pool_grad(x, y, Grad(kFloat32, {1, 3, 2, 1}), {3, 2}, {2}, "SAME");
      },
      {"MaxPoolGrad", "grad shape (1, 3, 2, 1)",
       "does not match the pooling output shape (1, 3, 2, 2)", "orig_input (1, 5, 4, 2)",
       "pooling_grad_ops_test.cc"});
  testing::ExpectError(
      [&] {
        max_pool_grad(x, y, y, {3, 2}, {1}, "SAME");
      },
      {"MaxPoolGrad", "orig_output shape (1, 3, 2, 2)",
       "does not match the pooling output shape (1, 5, 4, 2)"});
  testing::ExpectError(
      [&] {
        max_pool_grad(x, y, y, {3, 2}, {2}, "EXPLICIT", {0, 0, 3, 0, 0, 0, 0, 0});
      },
      {"MaxPoolGrad", "explicit paddings must be smaller than the window", "[1, 3, 2, 1]"});
  testing::ExpectError(
      [&] {
        max_pool_grad(Grad(kFloat32, {5, 4, 2}), y, y, {3, 2}, {2}, "SAME");
      },
      {"MaxPoolGrad", "orig_input must be 4-D", "(5, 4, 2)"});
  testing::ExpectError(
      [&] {
        avg_pool_grad({1, 5, 4}, y, {3, 2}, {2}, "SAME");
      },
      {"AvgPoolGrad", "orig_input_shape must be a 1-D tensor of 4 values", "(3,)"});
  testing::ExpectError(
      [&] {
        avg_pool_grad({1, 5, 4, 2}, y, {3, 2}, {1}, "VALID");
      },
      {"AvgPoolGrad", "grad shape (1, 3, 2, 2)",
       "does not match the pooling output shape (1, 3, 3, 2)", "orig_input_shape (1, 5, 4, 2)"});
  testing::ExpectError(
      [&] {
        avg_pool_grad({1, 1, 4, 2}, y, {3, 2}, {1}, "VALID");
      },
      {"AvgPoolGrad", "input height 1 is smaller than the window height 3"});
  testing::ExpectError(
      [&] {
        avg_pool_grad({1, 5, 4, 2}, y, {3, 2}, {2}, "EXPLICIT");
      },
      {"AvgPoolGrad", "attr 'padding' is \"EXPLICIT\"", "SAME, VALID"});
  testing::ExpectError(
      [&] {
        max_pool_grad_grad(x, y, y, {3, 2}, {2}, "SAME");
      },
      {"MaxPoolGradGrad", "grad shape (1, 3, 2, 2)",
       "must equal the orig_input shape (1, 5, 4, 2)"});
  testing::ExpectError(
      [&] {
        max_pool_grad_grad(x, x, x, {3, 2}, {2}, "SAME");
      },
      {"MaxPoolGradGrad", "orig_output shape (1, 5, 4, 2)",
       "does not match the pooling output shape (1, 3, 2, 2)"});
  testing::ExpectError(
      [&] {
        max_pool_grad_grad(x, y, x, {3, 2, 1}, {2}, "SAME");
      },
      {"MaxPoolGradGrad", "ksize must be [1, height, width, 1]", "[3, 2, 1]"});
}

TEST_CASE("The pooling ops share their window attrs' positions") {
  // Every pooling op and gradient declares PoolAttrs (ksize, strides, padding) first, so kernels
  // and gradients read one set of keys. TensorFlow's MaxPool declares T first; a NodeDef's attrs
  // are a map, so the order is invisible on the wire.
  const auto attrs = [](const char* name) {
    const OpDef* op = OpRegistry::Global().Find(name);
    REQUIRE(op != nullptr);
    std::vector<std::string> got;
    for (const AttrDef& a : op->attrs) got.push_back(a.name);
    return got;
  };
  using Names = std::vector<std::string>;
  const Names max_pool{"ksize", "strides", "padding", "explicit_paddings", "data_format", "T"};
  const Names unpadded{"ksize", "strides", "padding", "data_format", "T"};
  CHECK(attrs("MaxPool") == max_pool);
  CHECK(attrs("MaxPoolGrad") == max_pool);
  CHECK(attrs("AvgPool") == unpadded);
  CHECK(attrs("AvgPoolGrad") == unpadded);
  CHECK(attrs("MaxPoolGradGrad") == unpadded);
}

}  // namespace
}  // namespace duet
