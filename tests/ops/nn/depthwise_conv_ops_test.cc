// DepthwiseConv2dNative, DepthwiseConv2dNativeBackpropInput and
// DepthwiseConv2dNativeBackpropFilter through depthwise_conv2d() and its backprop functions:
// values vs TensorFlow (testdata/gen_depthwise_expected.py), the adjoint identities in float64,
// the oneDNN (float32, bfloat16) paths against the float64 loops, and attr and shape errors.
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "core/constant.h"
#include "ops/nn/nn_backprop_ops.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_registry.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::Dot;
using testing::MakeTensor;
using testing::ModPattern;
using testing::ToDoubles;

// Inputs as gen_depthwise_expected.py builds them.
Tensor Input(DType dt, const Shape& s) {
  return MakeTensor(dt, s, ModPattern(s.num_elements(), 7, 11, 5, 4));
}
Tensor Filter(DType dt, const Shape& s) {
  return MakeTensor(dt, s, ModPattern(s.num_elements(), 5, 9, 4, 3));
}
Tensor OutBackprop(DType dt, const Shape& s) {
  return MakeTensor(dt, s, ModPattern(s.num_elements(), 3, 7, 3, 2));
}

// The attrs of one depthwise convolution; EXPLICIT when `explicit_paddings` is set.
struct DepthwiseCase {
  std::string name;
  Shape input, filter;
  std::vector<int64_t> strides;
  std::string padding;
  std::vector<int64_t> dilations = {1, 1, 1, 1};
  std::vector<int64_t> explicit_paddings = {};
};

Tensor Conv(const DepthwiseCase& c, const Tensor& x, const Tensor& f) {
  if (c.padding == "EXPLICIT") {
    return depthwise_conv2d_explicit_padding(x, f, c.strides, c.explicit_paddings, c.dilations);
  }
  return depthwise_conv2d(x, f, c.strides, c.padding, c.dilations);
}
Tensor BackpropInput(const DepthwiseCase& c, const Tensor& f, const Tensor& dy) {
  return depthwise_conv2d_backprop_input(c.input, f, dy, c.strides, c.padding, c.dilations,
                                         c.explicit_paddings);
}
Tensor BackpropFilter(const DepthwiseCase& c, const Tensor& x, const Tensor& dy) {
  return depthwise_conv2d_backprop_filter(x, c.filter, dy, c.strides, c.padding, c.dilations,
                                          c.explicit_paddings);
}

// Uniform values in [-1, 1), as doubles.
std::vector<double> RandomValues(const Shape& s, int seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<double> v(s.num_elements());
  for (double& x : v) x = uniform(gen);
  return v;
}

TEST_CASE("DepthwiseConv2dNative matches TensorFlow") {
  struct Expected {
    DepthwiseCase conv;
    Shape out;
    std::vector<double> values;
  };
  const std::vector<Expected> cases = {
      {{"multiplier 1 SAME stride 2", {1, 5, 4, 2}, {3, 3, 2, 1}, {2}, "SAME"},
       {1, 3, 2, 2},
       {0.25, -0.333333333, 1.5, -0.75, 3, 1.25, -2.5, -1.25, 0.25, -1.33333333, -0.75, -0.5}},
      {{"multiplier 2 VALID", {1, 5, 4, 2}, {3, 3, 2, 2}, {1}, "VALID"},
       {1, 3, 2, 4},
       {1.5, -1.5, 0.583333333, 0.916666667, -1.25, -0.583333333, -1.25, 1.83333333,
        1.5, -1.5, 1.5,         -2.75,       1.5,   -2.41666667,  1.5,   0,
        1.5, -1.5, 1.5,         0.916666667, 1.5,   1.25,         1.5,   0}},
      {{"multiplier 2 VALID dilation 2", {1, 5, 4, 2}, {2, 2, 2, 2}, {1}, "VALID", {2, 2}},
       {1, 3, 2, 4},
       {2,           0.333333333, -0.166666667, -1.58333333, -0.833333333, 1.66666667,
        -1.08333333, 1.66666667,  1.66666667,   0.166666667, -0.166666667, -1.41666667,
        -1.16666667, 1.5,         1.66666667,   0,           1.33333333,   0,
        -1.08333333, 1.5,         0.333333333,  -1.41666667, 1.66666667,   0.166666667}},
      {{"multiplier 3 SAME stride 2, batch 2", {2, 3, 4, 1}, {2, 2, 1, 3}, {2}, "SAME"},
       {2, 2, 2, 3},
       {2.91666667,
        -0.666666667,
        2.5,
        1.16666667,
        0.333333333,
        1.75,
        1.83333333,
        -0.833333333,
        1.75,
        -0.5,
        0.75,
        -1,
        -2.08333333,
        -0.166666667,
        -2,
        -0.166666667,
        -0.0833333333,
        0,
        -1.16666667,
        0.416666667,
        -1,
        2,
        -0.75,
        1.75}},
      {{"multiplier 2 EXPLICIT stride 2",
        {1, 5, 4, 2},
        {3, 3, 2, 2},
        {2},
        "EXPLICIT",
        {1, 1},
        {0, 0, 1, 2, 2, 0, 0, 0}},
       {1, 3, 2, 4},
       {0.25, -0.5, 0.666666667, 0.5,  -1,    -0.25, -2.16666667, -0.666666667,
        0.25, 1,    1.25,        0.25, 1.5,   -1.5,  1.5,         -2.75,
        0.25, 0.5,  1.25,        -2.5, -0.25, -0.25, -1.75,       0.333333333}},
  };
  for (const Expected& e : cases) {
    for (DType dt : {kFloat32, kFloat64}) {
      INFO(e.conv.name << " " << DTypeName(dt));
      testing::ExpectTensor(Conv(e.conv, Input(dt, e.conv.input), Filter(dt, e.conv.filter)), dt,
                            e.out, e.values, 1e-5);
    }
  }
}

TEST_CASE("The depthwise backprop ops match TensorFlow's gradients") {
  struct Expected {
    DepthwiseCase conv;
    Shape out;
    std::vector<double> d_input, d_filter;
  };
  const std::vector<Expected> cases = {
      {{"multiplier 2 SAME stride 2", {1, 5, 4, 2}, {3, 3, 2, 2}, {2}, "SAME"},
       {1, 3, 2, 4},
       {-1,
        1.66666667,
        -2,
        -2.16666667,
        2.83333333,
        -0.5,
        1.33333333,
        -1.16666667,
        1,
        1.83333333,
        1,
        2.83333333,
        -3.66666667,
        4.33333333,
        2.5,
        1.83333333,
        -1,
        -0.833333333,
        0,
        1,
        0,
        -0.166666667,
        -1.33333333,
        2,
        -0.166666667,
        -3,
        -3,
        -2.66666667,
        0,
        1.66666667,
        -2.66666667,
        1,
        1.33333333,
        1.33333333,
        2,
        -1.66666667,
        -0.5,
        -2.16666667,
        0.666666667,
        0.5},
       {-0.75, -2.5,  1.625, -0.5,  -1.375, 1.625,  -0.5,  0.625, 1.5,   0.25, 0.25,  -0.5,
        1.625, -2.75, -1,    3.5,   3.375,  -0.75,  1.125, 0.375, 1.5,   0.5,  -0.75, -0.125,
        1,     -0.75, 0.25,  1.625, 2.625,  -1.375, -2.5,  -0.5,  -0.75, 1.5,  -0.75, 0.25}},
      {{"multiplier 2 VALID dilation 2", {1, 5, 4, 2}, {2, 2, 2, 2}, {1}, "VALID", {2, 2}},
       {1, 3, 2, 4},
       {2,           -1.83333333, -1.66666667,  -1.5,       1,           -1.16666667,
        -1.66666667, -2.16666667, 0.5,          1.16666667, 1.5,         1.5,
        1.5,         1.5,         1.16666667,   0.5,        -2.16666667, -0.666666667,
        0.166666667, 2.66666667,  -2.5,         0,          -0.5,        3,
        -2,          -1.16666667, -0.666666667, -0.5,       -1,          -0.833333333,
        -1,          -1.5,        0.666666667,  1.33333333, 2,           -1.5,
        1.33333333,  1.33333333,  1.33333333,   -0.5},
       {0.5, -0.75, 3.875, -3.875, -0.125, 1.875, -1.5, 0.875, 0.75, -1.25, 0.25, 2.75, 0.125, 2.75,
        -1, 0.625}},
  };
  for (const Expected& e : cases) {
    for (DType dt : {kFloat32, kFloat64}) {
      INFO(e.conv.name << " " << DTypeName(dt));
      const Tensor dy = OutBackprop(dt, e.out);
      testing::ExpectTensor(BackpropInput(e.conv, Filter(dt, e.conv.filter), dy), dt, e.conv.input,
                            e.d_input, 1e-5);
      testing::ExpectTensor(BackpropFilter(e.conv, Input(dt, e.conv.input), dy), dt, e.conv.filter,
                            e.d_filter, 1e-5);
    }
  }
}

// Multipliers 1 to 3, one input channel (a plain convolution for oneDNN), SAME with an odd
// padding total, strides, unequal strides, dilations, EXPLICIT, batches.
std::vector<DepthwiseCase> Cases() {
  return {
      {"multiplier 1 SAME", {2, 7, 6, 3}, {3, 3, 3, 1}, {1}, "SAME"},
      {"multiplier 2 SAME stride 2, odd padding", {1, 8, 9, 4}, {2, 3, 4, 2}, {2}, "SAME"},
      {"one channel, multiplier 3 VALID", {2, 6, 5, 1}, {3, 2, 1, 3}, {1}, "VALID"},
      {"multiplier 3 VALID strides 2x1", {1, 9, 7, 5}, {3, 3, 5, 3}, {2, 1}, "VALID"},
      {"multiplier 2 SAME dilation 2", {2, 9, 8, 3}, {3, 2, 3, 2}, {1}, "SAME", {2, 2}},
      {"multiplier 2 EXPLICIT stride 2",
       {1, 7, 6, 4},
       {3, 3, 4, 2},
       {2},
       "EXPLICIT",
       {1, 1},
       {0, 0, 2, 0, 1, 3, 0, 0}},
  };
}

TEST_CASE("The depthwise backprop ops are the forward op's adjoints") {
  for (const DepthwiseCase& c : Cases()) {
    INFO(c.name);
    const Tensor x = MakeTensor(kFloat64, c.input, RandomValues(c.input, 1));
    const Tensor f = MakeTensor(kFloat64, c.filter, RandomValues(c.filter, 2));
    const Tensor y = Conv(c, x, f);
    CHECK(y.shape()[3] == c.filter[2] * c.filter[3]);
    const Tensor g = MakeTensor(kFloat64, y.shape(), RandomValues(y.shape(), 3));
    const double want = Dot(y, g);
    CHECK(Dot(x, BackpropInput(c, f, g)) == Approx(want).epsilon(1e-12).margin(1e-9));
    CHECK(Dot(f, BackpropFilter(c, x, g)) == Approx(want).epsilon(1e-12).margin(1e-9));
  }
}

TEST_CASE("float32 and bfloat16 depthwise convolutions agree with float64 on random inputs") {
  for (const DepthwiseCase& c : Cases()) {
    INFO(c.name);
    const std::vector<double> x = RandomValues(c.input, 4), f = RandomValues(c.filter, 5);
    const Shape out =
        Conv(c, MakeTensor(kFloat64, c.input, x), MakeTensor(kFloat64, c.filter, f)).shape();
    const std::vector<double> g = RandomValues(out, 6);
    for (DType dt : {kFloat32, kFloat32, kBFloat16}) {  // float32 twice: the cached plan re-binds
      INFO(DTypeName(dt));
      // The float64 reference on the values as `dt` stores them.
      auto exact = [dt](const Shape& s, const std::vector<double>& v) {
        return MakeTensor(kFloat64, s, testing::RoundTo(dt, v));
      };
      const Tensor x64 = exact(c.input, x), f64 = exact(c.filter, f), g64 = exact(out, g);
      const Tensor xt = MakeTensor(dt, c.input, x), ft = MakeTensor(dt, c.filter, f),
                   gt = MakeTensor(dt, out, g);
      const double tol = dt == kBFloat16 ? 5e-2 : 1e-5;
      testing::ExpectTensor(Conv(c, xt, ft), dt, out, ToDoubles(Conv(c, x64, f64)), tol);
      testing::ExpectTensor(BackpropInput(c, ft, gt), dt, c.input,
                            ToDoubles(BackpropInput(c, f64, g64)), tol);
      // Filter gradients sum over the batch and every output position.
      testing::ExpectTensor(BackpropFilter(c, xt, gt), dt, c.filter,
                            ToDoubles(BackpropFilter(c, x64, g64)), 4 * tol);
    }
  }
}

TEST_CASE("Depthwise convolutions with empty sums or empty outputs") {
  for (DType dt : {kFloat32, kFloat64}) {
    INFO(DTypeName(dt));
    // Multiplier 0: no output channels.
    CHECK(depthwise_conv2d(Input(dt, {1, 3, 3, 2}), zeros({2, 2, 2, 0}, dt), {1}, "SAME").shape() ==
          Shape{1, 3, 3, 0});
    testing::ExpectTensor(depthwise_conv2d_backprop_input({1, 2, 2, 1}, zeros({1, 1, 1, 0}, dt),
                                                          zeros({1, 2, 2, 0}, dt), {1}, "SAME"),
                          dt, {1, 2, 2, 1}, {0, 0, 0, 0});
    // An empty batch: the filter gradient sums over nothing.
    testing::ExpectTensor(depthwise_conv2d_backprop_filter(zeros({0, 2, 2, 1}, dt), {1, 1, 1, 2},
                                                           zeros({0, 2, 2, 2}, dt), {1}, "VALID"),
                          dt, {1, 1, 1, 2}, {0, 0});
  }
}

TEST_CASE("DepthwiseConv2dNative reports bad shapes and attrs") {
  const Tensor x = Input(kFloat32, {1, 5, 4, 2});
  const Tensor f = Filter(kFloat32, {3, 3, 2, 2});
  testing::ExpectError(
      [&] {
        depthwise_conv2d(x, Filter(kFloat32, {3, 3, 3, 2}), {1}, "SAME");
      },
      {"DepthwiseConv2dNative",
       "input (1, 5, 4, 2) has 2 channels but filter (3, 3, 3, 2) expects 3",
       "depthwise_conv_ops_test.cc"});
  testing::ExpectError(
      [&] {
        depthwise_conv2d(x, Filter(kFloat32, {3, 3, 2}), {1}, "SAME");
      },
      {"DepthwiseConv2dNative", "filter must be 4-D",
       "height, width, in_channels, channel_multiplier", "(3, 3, 2)"});
  testing::ExpectError(
      [&] {
        depthwise_conv2d(Input(kFloat32, {5, 4, 2}), f, {1}, "SAME");
      },
      {"DepthwiseConv2dNative", "input must be 4-D", "(5, 4, 2)"});
  testing::ExpectError(
      [&] {
        depthwise_conv2d(x, f, {2, 1, 1, 1}, "SAME");
      },
      {"DepthwiseConv2dNative", "strides must be [1, height, width, 1]", "[2, 1, 1, 1]"});
  testing::ExpectError([&] { depthwise_conv2d(x, f, {1}, "FULL"); },
                       {"DepthwiseConv2dNative", "attr 'padding' is \"FULL\""});
  testing::ExpectError(
      [&] {
        depthwise_conv2d(Input(kFloat32, {1, 1, 4, 2}), f, {1}, "VALID");
      },
      {"DepthwiseConv2dNative", "input height 1 is smaller than the window height 3"});
  testing::ExpectError(
      [&] {
        depthwise_conv2d(x, Filter(kFloat64, {3, 3, 2, 2}), {1}, "SAME");
      },
      {"DepthwiseConv2dNative", "float64", "float32"});
  testing::ExpectError([&] { depthwise_conv2d(x, f, {1}, "BAD", "dw1"); },
                       {"DepthwiseConv2dNative", "node 'dw1'"});
}

TEST_CASE("The depthwise backprop ops report bad shapes") {
  const Tensor f = Filter(kFloat32, {3, 3, 2, 2});
  const Tensor x = Input(kFloat32, {1, 5, 4, 2});
  testing::ExpectError(
      [&] {
        depthwise_conv2d_backprop_input({1, 5, 4, 2}, f, OutBackprop(kFloat32, {1, 5, 4, 2}), {1},
                                        "SAME");
      },
      {"DepthwiseConv2dNativeBackpropInput", "out_backprop shape (1, 5, 4, 2)",
       "does not match the DepthwiseConv2dNative output shape (1, 5, 4, 4)",
       "filter shape (3, 3, 2, 2)", "depthwise_conv_ops_test.cc"});
  testing::ExpectError(
      [&] {
        depthwise_conv2d_backprop_input({1, 5, 4, 3}, f, OutBackprop(kFloat32, {1, 5, 4, 4}), {1},
                                        "SAME");
      },
      {"DepthwiseConv2dNativeBackpropInput", "input_sizes (1, 5, 4, 3) has 3 channels",
       "filter shape (3, 3, 2, 2) expects 2"});
  testing::ExpectError(
      [&] {
        depthwise_conv2d_backprop_input({1, 5, 4, 2}, Filter(kFloat32, {3, 3, 2}),
                                        OutBackprop(kFloat32, {1, 5, 4, 4}), {1}, "SAME");
      },
      {"DepthwiseConv2dNativeBackpropInput", "filter must be 4-D", "(3, 3, 2)"});
  testing::ExpectError(
      [&] {
        depthwise_conv2d_backprop_filter(x, {3, 3, 2, 1}, OutBackprop(kFloat32, {1, 3, 2, 4}), {1},
                                         "VALID");
      },
      {"DepthwiseConv2dNativeBackpropFilter", "out_backprop shape (1, 3, 2, 4)",
       "does not match the DepthwiseConv2dNative output shape (1, 3, 2, 2)",
       "input shape (1, 5, 4, 2)", "filter_sizes (3, 3, 2, 1)"});
  testing::ExpectError(
      [&] {
        depthwise_conv2d_backprop_filter(Input(kFloat32, {5, 4, 2}), {3, 3, 2, 2},
                                         OutBackprop(kFloat32, {1, 5, 4, 4}), {1}, "SAME");
      },
      {"DepthwiseConv2dNativeBackpropFilter", "input must be 4-D", "(5, 4, 2)"});
}

TEST_CASE("The depthwise ops declare TensorFlow's attrs in TensorFlow's order") {
  // The kernels and gradients read attrs by these positions (DepthwiseConvAttrs).
  for (const char* name : {"DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
                           "DepthwiseConv2dNativeBackpropFilter"}) {
    INFO(name);
    const OpDef* op = OpRegistry::Global().Find(name);
    REQUIRE(op != nullptr);
    std::vector<std::string> got;
    for (const AttrDef& a : op->attrs) got.push_back(a.name);
    CHECK(got == std::vector<std::string>{"T", "strides", "padding", "explicit_paddings",
                                          "data_format", "dilations"});
  }
}

}  // namespace
}  // namespace duet
