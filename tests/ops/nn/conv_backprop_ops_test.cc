// Conv2DBackpropInput / Conv2DBackpropFilter through conv2d_backprop_input() /
// conv2d_backprop_filter(): values vs PyTorch autograd, the adjoint identities with Conv2D in
// float64, the oneDNN (float32, bfloat16) paths against the Eigen (float64) path, and shape errors.
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

// The attrs of one Conv2D case; EXPLICIT when `explicit_paddings` is set.
struct ConvCase {
  std::string name;
  Shape input, filter;
  std::vector<int64_t> strides;
  std::string padding;
  std::vector<int64_t> dilations = {1, 1, 1, 1};
  std::vector<int64_t> explicit_paddings = {};
};

Tensor Conv(const ConvCase& c, const Tensor& x, const Tensor& f) {
  if (c.padding == "EXPLICIT") {
    return conv2d_explicit_padding(x, f, c.strides, c.explicit_paddings, c.dilations);
  }
  return conv2d(x, f, c.strides, c.padding, c.dilations);
}
Tensor BackpropInput(const ConvCase& c, const Tensor& f, const Tensor& dy) {
  return conv2d_backprop_input(c.input, f, dy, c.strides, c.padding, c.dilations,
                               c.explicit_paddings);
}
Tensor BackpropFilter(const ConvCase& c, const Tensor& x, const Tensor& dy) {
  return conv2d_backprop_filter(x, c.filter, dy, c.strides, c.padding, c.dilations,
                                c.explicit_paddings);
}

// Inputs as the PyTorch reference (below) builds them.
Tensor Input(DType dt, const Shape& s) {
  return MakeTensor(dt, s, ModPattern(s.num_elements(), 7, 11, 5, 4));
}
Tensor Filter(DType dt, const Shape& s) {
  return MakeTensor(dt, s, ModPattern(s.num_elements(), 5, 9, 4, 3));
}
Tensor OutBackprop(DType dt, const Shape& s) {
  return MakeTensor(dt, s, ModPattern(s.num_elements(), 3, 7, 3, 2));
}

// Expected values: PyTorch autograd of F.conv2d over the explicitly padded NCHW input (SAME pads
// by TensorFlow's rule: total = max((out - 1) * stride + effective_window - in, 0), total / 2
// before), fed the out_backprop below; x.grad and w.grad permuted back to NHWC / HWIO.
struct Reference {
  ConvCase conv;
  Shape out;
  std::vector<double> d_input, d_filter;
};

const std::vector<Reference>& References() {
  static const auto* refs = new std::vector<Reference>{
      {{"SAME stride 2", {1, 5, 4, 2}, {3, 3, 2, 2}, {2, 2}, "SAME"},
       {1, 3, 2, 2},
       {-1,
        -1.5,
        -2,
        2,
        2.83333333,
        2.66666667,
        2,
        -2.16666667,
        -1.16666667,
        -1.66666667,
        -2.16666667,
        -2.66666667,
        -2.5,
        -1.5,
        -0.833333333,
        -0.833333333,
        1.33333333,
        1.33333333,
        1.33333333,
        -1.66666667,
        -0.333333333,
        -0.666666667,
        0.666666667,
        -1.16666667,
        -1.16666667,
        2.33333333,
        2.83333333,
        3.33333333,
        -1.83333333,
        3,
        3,
        2.83333333,
        -1,
        -0.5,
        0,
        0.5,
        0,
        0.666666667,
        -0.666666667,
        1},
       {-1.25, 0.5,   0.5,    1.875,  0.875, -2.25, -1.5,   0.5,  0.5,   1,     -0.5,  0.5,
        1.25,  0.375, -1.125, -1.875, 2,     1.375, -3.125, 0.5,  0.375, 1.125, 0.875, 0.625,
        2.25,  -1.25, -0.625, -1,     2,     0.625, 1.875,  -0.5, 0.25,  -1,    0.75,  0}},
      {{"SAME dilation 2", {1, 5, 4, 2}, {3, 3, 2, 2}, {1, 1}, "SAME", {2, 2}},
       {1, 5, 4, 2},
       {-3.33333333, 0.666666667, 2.16666667, -1.83333333, 1.66666667,   -1.83333333,  1.66666667,
        0.666666667, 2.33333333,  2.33333333, -2.66666667, -1.33333333,  -0.666666667, 2.33333333,
        -3,          1.33333333,  0,          -1.5,        -1.66666667,  0.166666667,  1.5,
        0,           5,           5.33333333, -2.16666667, -2.16666667,  -0.666666667, 2.16666667,
        -2.16666667, 2.33333333,  2,          -2.66666667, -0.833333333, 1.16666667,   3,
        -2.66666667, 1.66666667,  2.16666667, -2.33333333, -0.5},
       {0.5,   0.125, -2.25, 2.25, -0.5,  1.125,  3.875, 0.25,  0,      1.125, -1.125, -0.5,
        0.375, 2.625, 0,     -7,   -3.75, -4.875, 0.75,  5.25,  1.75,   2.75,  1.125,  -2.25,
        -0.75, 1.625, -0.25, 2.25, 2.375, -2.25,  -6,    3.375, -1.375, 1.25,  2.125,  -0.625}},
      // Input row 5 and column 4 lie beyond the last window: their gradient is zero.
      {{"VALID stride 2, rows left over", {1, 6, 5, 2}, {3, 2, 2, 3}, {2, 2}, "VALID"},
       {1, 2, 2, 3},
       {0.5,         0.5,         0.5,
        0.5,         2,           -2,
        1.5,         2,           0,
        0,           0.5,         0.5,
        0.5,         0.5,         -2,
        1.5,         2,           -2,
        0,           0,           -0.666666667,
        1.83333333,  -1.66666667, -0.666666667,
        -1.66666667, 4.33333333,  -3.16666667,
        -1.66666667, 0,           0,
        1.33333333,  -2.16666667, -1.16666667,
        1.33333333,  2.33333333,  -1.16666667,
        -3.16666667, 2.33333333,  0,
        0,           -2.16666667, -1.16666667,
        1.33333333,  -2.16666667, -1.16666667,
        -3.16666667, 2.33333333,  -1.16666667,
        0,           0,           0,
        0,           0,           0,
        0,           0,           0,
        0,           0,           0},
       {1.375, -0.625, -2.625, 1.375, -1,     2.75,   0,     2.75,   -1.5,   -2.75, -0.375, 1.125,
        0,     2.5,    -1.125, 1.375, -0.625, -2.625, 1.375, -1,     2.75,   0,     2.75,   -1.5,
        -2.75, 0.125,  0.375,  0,     2.5,    -1.125, 1.375, -0.625, -2.625, 1.375, -1,     2.75}},
      {{"EXPLICIT stride 2",
        {1, 5, 4, 2},
        {3, 3, 2, 2},
        {2, 2},
        "EXPLICIT",
        {1, 1, 1, 1},
        {0, 0, 2, 1, 1, 0, 0, 0}},
       {1, 3, 2, 2},
       {-2.16666667,
        -2.66666667,
        -2.5,
        -1.5,
        -0.833333333,
        -0.833333333,
        3.66666667,
        3.66666667,
        1.33333333,
        -1.66666667,
        -0.333333333,
        -0.666666667,
        0.666666667,
        -1.16666667,
        -1.5,
        -1.83333333,
        2.83333333,
        3.33333333,
        -1.83333333,
        3,
        3,
        2.83333333,
        -0.333333333,
        -0.5,
        0,
        0.5,
        0,
        0.666666667,
        -0.666666667,
        1,
        1.16666667,
        1.33333333,
        -1.5,
        -1,
        1,
        -1.33333333,
        -1.16666667,
        -1,
        -0.833333333,
        -0.666666667},
       {-0.25, 0.75,  1.125, -2.875, -1.5,  0.5,   0.25,   1.875,  0.625, -2.25, 1,      -2.25,
        -0.25, 0.625, -0.25, 1.125,  -1.25, 0.5,   0.5,    1.875,  0.875, -2.25, -1.5,   0.5,
        -1,    0.75,  1.625, 0.375,  1.25,  0.375, -1.125, -1.875, 2,     1.375, -3.125, 0.5}},
  };
  return *refs;
}

TEST_CASE("Conv2DBackpropInput and Conv2DBackpropFilter match PyTorch autograd") {
  for (const Reference& r : References()) {
    for (DType dt : {kFloat32, kFloat64}) {
      INFO(r.conv.name << ", " << DTypeName(dt));
      const Tensor dy = OutBackprop(dt, r.out);
      testing::ExpectTensor(BackpropInput(r.conv, Filter(dt, r.conv.filter), dy), dt, r.conv.input,
                            r.d_input, 1e-5);
      testing::ExpectTensor(BackpropFilter(r.conv, Input(dt, r.conv.input), dy), dt, r.conv.filter,
                            r.d_filter, 1e-5);
    }
  }
}

// Shapes and attrs for the identity and agreement checks: every padding, strides 1 to 3 (3 with a
// 1x1 window skips input cells), dilation 2, batches, unequal windows and strides.
std::vector<ConvCase> Cases() {
  return {
      {"SAME stride 1", {2, 6, 5, 3}, {3, 3, 3, 4}, {1, 1}, "SAME"},
      {"SAME stride 2", {2, 7, 6, 3}, {3, 2, 3, 2}, {2, 2}, "SAME"},
      {"SAME strides 2x3", {1, 7, 8, 2}, {2, 3, 2, 3}, {2, 3}, "SAME"},
      {"SAME dilation 2", {1, 7, 6, 2}, {3, 3, 2, 3}, {1, 1}, "SAME", {2, 2}},
      {"VALID stride 1", {2, 6, 5, 3}, {3, 2, 3, 2}, {1, 1}, "VALID"},
      {"VALID stride 2", {1, 8, 7, 2}, {3, 3, 2, 4}, {2, 2}, "VALID"},
      {"VALID stride 3 1x1 window", {1, 7, 8, 3}, {1, 1, 3, 2}, {3, 3}, "VALID"},
      {"VALID dilation 2 stride 2", {2, 9, 8, 2}, {2, 3, 2, 3}, {2, 2}, "VALID", {2, 2}},
      {"EXPLICIT stride 1",
       {1, 5, 6, 2},
       {3, 3, 2, 3},
       {1, 1},
       "EXPLICIT",
       {1, 1, 1, 1},
       {0, 0, 1, 2, 0, 3, 0, 0}},
      {"EXPLICIT stride 2 dilation 2",
       {2, 7, 6, 3},
       {2, 2, 3, 2},
       {2, 2},
       "EXPLICIT",
       {2, 2},
       {0, 0, 2, 0, 1, 1, 0, 0}},
  };
}

TEST_CASE("The backprop ops are Conv2D's adjoints: <conv2d(x, f), g> = <x, dx> = <f, df>") {
  for (const ConvCase& c : Cases()) {
    INFO(c.name);
    const Tensor x = Input(kFloat64, c.input);
    const Tensor f = Filter(kFloat64, c.filter);
    const Tensor y = Conv(c, x, f);
    const Tensor g = OutBackprop(kFloat64, y.shape());
    const Tensor dx = BackpropInput(c, f, g);
    const Tensor df = BackpropFilter(c, x, g);
    CHECK(dx.shape() == c.input);
    CHECK(df.shape() == c.filter);
    const double want = Dot(y, g);
    CHECK(Dot(x, dx) == Approx(want).epsilon(1e-12).margin(1e-9));
    CHECK(Dot(f, df) == Approx(want).epsilon(1e-12).margin(1e-9));
  }
}

TEST_CASE("oneDNN float32 and bfloat16 backprop agree with the float64 Eigen path") {
  for (const ConvCase& c : Cases()) {
    INFO(c.name);
    const Shape out = Conv(c, Input(kFloat64, c.input), Filter(kFloat64, c.filter)).shape();
    const Tensor want_dx = BackpropInput(c, Filter(kFloat64, c.filter), OutBackprop(kFloat64, out));
    const Tensor want_df = BackpropFilter(c, Input(kFloat64, c.input), OutBackprop(kFloat64, out));
    for (DType dt : {kFloat32, kFloat32, kBFloat16}) {  // float32 twice: the cached plan re-binds
      INFO(DTypeName(dt));
      const double tol = dt == kBFloat16 ? 3e-2 : 1e-5;
      const Tensor dx = BackpropInput(c, Filter(dt, c.filter), OutBackprop(dt, out));
      const Tensor df = BackpropFilter(c, Input(dt, c.input), OutBackprop(dt, out));
      testing::ExpectTensor(dx, dt, c.input, ToDoubles(want_dx), tol);
      testing::ExpectTensor(df, dt, c.filter, ToDoubles(want_df), tol);
    }
  }
}

TEST_CASE("conv2d_explicit_padding with SAME's paddings equals conv2d SAME") {
  const Tensor x = Input(kFloat32, {1, 5, 4, 2});
  const Tensor f = Filter(kFloat32, {3, 3, 2, 2});
  // Height 5, width 4, stride 2, window 3: SAME pads (1, 1) rows and (0, 1) columns.
  testing::ExpectTensorNear(conv2d_explicit_padding(x, f, {2, 2}, {0, 0, 1, 1, 0, 1, 0, 0}),
                            conv2d(x, f, {2, 2}, "SAME"), 1e-6);
}

TEST_CASE("Conv2D backprop with empty sums gives zeros") {
  for (DType dt : {kFloat32, kFloat64}) {
    INFO(DTypeName(dt));
    // No output channels: nothing flows back to the input.
    testing::ExpectTensor(conv2d_backprop_input({1, 2, 2, 1}, zeros({1, 1, 1, 0}, dt),
                                                zeros({1, 2, 2, 0}, dt), {1}, "SAME"),
                          dt, {1, 2, 2, 1}, {0, 0, 0, 0});
    // An empty batch: the filter gradient sums over nothing.
    testing::ExpectTensor(conv2d_backprop_filter(zeros({0, 2, 2, 1}, dt), {1, 1, 1, 2},
                                                 zeros({0, 2, 2, 2}, dt), {1}, "VALID"),
                          dt, {1, 1, 1, 2}, {0, 0});
  }
}

// A Conv2DBackpropInput call with a raw int32 input_sizes tensor (conv2d_backprop_input() always
// passes 4 valid sizes).
Tensor RawBackpropInput(const Tensor& sizes, const Tensor& f, const Tensor& dy) {
  const OpDef* op = OpRegistry::Global().Find("Conv2DBackpropInput");
  OpCall call(op, {sizes, f, dy}, OpSite());
  call.attrs[op->attr_index("strides")] = std::vector<int64_t>{1, 1, 1, 1};
  call.attrs[op->attr_index("padding")] = std::string("SAME");
  return RunSingleOutputOp(call);
}

TEST_CASE("Conv2D backprop shape errors name the shapes") {
  const Tensor f = Filter(kFloat32, {3, 3, 2, 2});
  const Tensor x = Input(kFloat32, {1, 5, 4, 2});
  testing::ExpectError(
      [&] {
        conv2d_backprop_input({1, 5, 4}, f, OutBackprop(kFloat32, {1, 5, 4, 2}), {1}, "SAME");
      },
      {"Conv2DBackpropInput", "input_sizes must be a 1-D tensor of 4 values", "(3,)"});
  testing::ExpectError(
      [&] {
        RawBackpropInput(from_vector(std::vector<int32_t>{1, -5, 4, 2}, {4}), f,
                         OutBackprop(kFloat32, {1, 5, 4, 2}));
      },
      {"Conv2DBackpropInput", "input_sizes must be non-negative", "[1, -5, 4, 2]"});
  testing::ExpectError(
      [&] {
        conv2d_backprop_input({1, 5, 4, 2}, f, OutBackprop(kFloat32, {1, 3, 2, 2}), {1}, "SAME");
      },
      {"Conv2DBackpropInput", "out_backprop shape (1, 3, 2, 2)",
       "does not match the Conv2D output shape (1, 5, 4, 2)", "input_sizes (1, 5, 4, 2)",
       "filter shape (3, 3, 2, 2)", "SAME padding", "conv_backprop_ops_test.cc"});
  testing::ExpectError(
      [&] {
        conv2d_backprop_input({1, 5, 4, 3}, f, OutBackprop(kFloat32, {1, 5, 4, 2}), {1}, "SAME");
      },
      {"Conv2DBackpropInput", "input_sizes (1, 5, 4, 3) has 3 channels",
       "filter shape (3, 3, 2, 2) expects a multiple of 2"});
  testing::ExpectError(
      [&] {
        conv2d_backprop_input({1, 1, 4, 2}, f, OutBackprop(kFloat32, {1, 1, 2, 2}), {1}, "VALID");
      },
      {"Conv2DBackpropInput", "input height 1 is smaller than the window height 3",
       "input_sizes (1, 1, 4, 2)"});
  testing::ExpectError(
      [&] {
        conv2d_backprop_filter(x, {3, 3, 2, 2}, OutBackprop(kFloat32, {1, 3, 2, 3}), {1}, "VALID");
      },
      {"Conv2DBackpropFilter", "out_backprop shape (1, 3, 2, 3)",
       "does not match the Conv2D output shape (1, 3, 2, 2)", "input shape (1, 5, 4, 2)",
       "filter_sizes (3, 3, 2, 2)"});
  testing::ExpectError(
      [&] {
        conv2d_backprop_filter(x, {3, 3, 3, 2}, OutBackprop(kFloat32, {1, 5, 4, 2}), {1}, "SAME");
      },
      {"Conv2DBackpropFilter", "input shape (1, 5, 4, 2) has 2 channels",
       "filter_sizes (3, 3, 3, 2) expects a multiple of 3"});
  testing::ExpectError(
      [&] {
        conv2d_backprop_filter(x, {3, 0, 2, 2}, OutBackprop(kFloat32, {1, 5, 4, 2}), {1}, "SAME");
      },
      {"Conv2DBackpropFilter", "filter height and width must be at least 1",
       "filter_sizes (3, 0, 2, 2)"});
  testing::ExpectError(
      [&] {
        conv2d_backprop_filter(x, {3, 3, 2, 2}, OutBackprop(kFloat32, {5, 4, 2}), {1}, "SAME");
      },
      {"Conv2DBackpropFilter", "out_backprop must be 4-D", "(5, 4, 2)"});
  testing::ExpectError(
      [&] {
        conv2d_backprop_filter(x, {3, 3, 2, 2}, OutBackprop(kFloat32, {1, 5, 4, 2}), {1},
                               "EXPLICIT", {1, 1, 1, 1}, {0, 0, 1, 1});
      },
      {"Conv2DBackpropFilter", "explicit_paddings must be 8 non-negative values"});
  testing::ExpectError(
      [&] {
        conv2d_backprop_input({1, 5, 4, 2}, f, OutBackprop(kFloat32, {1, 5, 4, 2}), {2, 1, 1, 1},
                              "SAME");
      },
      {"Conv2DBackpropInput", "strides must be [1, height, width, 1]", "[2, 1, 1, 1]"});
}

TEST_CASE("The conv backprop ops declare Conv2D's attrs in Conv2D's order") {
  // The kernels and gradients read attrs by these positions.
  for (const char* name : {"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"}) {
    INFO(name);
    const OpDef* op = OpRegistry::Global().Find(name);
    REQUIRE(op != nullptr);
    std::vector<std::string> got;
    for (const AttrDef& a : op->attrs) got.push_back(a.name);
    CHECK(got == std::vector<std::string>{"T", "strides", "use_cudnn_on_gpu", "padding",
                                          "explicit_paddings", "data_format", "dilations"});
  }
}

}  // namespace
}  // namespace duet
