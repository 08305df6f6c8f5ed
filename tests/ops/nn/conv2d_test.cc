// Conv2D through conv2d(): values vs NumPy (testdata/gen_expected.py) for SAME/VALID, strides 1
// and 2, dilation, asymmetric SAME padding; every dtype; attr and shape errors.
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::MakeTensor;
using testing::ModPattern;
using testing::RoundTo;

// The gen_expected.py inputs: x (1, 5, 4, 2), filter (3, 3, 2, 2).
Tensor Input(DType dt) { return MakeTensor(dt, {1, 5, 4, 2}, ModPattern(40, 7, 11, 5, 4)); }
Tensor Filter(DType dt) { return MakeTensor(dt, {3, 3, 2, 2}, ModPattern(36, 5, 9, 4, 3)); }

TEST_CASE("Conv2D matches NumPy with SAME and VALID padding at strides 1 and 2") {
  for (DType dt : {kFloat32, kFloat64}) {
    INFO("dtype " << DTypeName(dt));
    testing::ExpectTensor(
        conv2d(Input(dt), Filter(dt), {1, 1, 1, 1}, "SAME"), dt, {1, 5, 4, 2},
        {-4.41666667, 1.66666667, -3.16666667, -0.916666667, 2.75, 1.08333333,  1.16666667,  0,
         -1.08333333, -2.25,      2.08333333,  -0.583333333, -2.5, 1.25,        0.583333333, 2.75,
         -1.75,       0.5,        3,           -4.25,        3,    -2.41666667, -3.33333333, 3,
         -3.33333333, 2.33333333, 3,           -0.583333333, 3,    1.25,        -1.75,       0.5,
         0.833333333, 1,          -2,          0.0833333333, 1.25, 1.58333333,  -2.16666667, -0.25},
        1e-5);
    // Width 4, window 3, stride 2: total padding 1, all of it after (TensorFlow's total / 2).
    testing::ExpectTensor(conv2d(Input(dt), Filter(dt), {1, 2, 2, 1}, "SAME"), dt, {1, 3, 2, 2},
                          {-3.16666667, -0.916666667, 1.16666667, 0, 3, -4.25, -3.33333333, 3, -2,
                           0.0833333333, -2.16666667, -0.25},
                          1e-5);
    testing::ExpectTensor(
        conv2d(Input(dt), Filter(dt), {1, 1}, "VALID"), dt, {1, 3, 2, 2},
        {2.08333333, -0.583333333, -2.5, 1.25, 3, -4.25, 3, -2.41666667, 3, -0.583333333, 3, 1.25},
        1e-5);
    testing::ExpectTensor(conv2d(Input(dt), Filter(dt), {2}, "VALID"), dt, {1, 2, 1, 2},
                          {2.08333333, -0.583333333, 3, -0.583333333}, 1e-5);
  }
}

TEST_CASE("Conv2D with dilations, batches and unequal strides matches NumPy") {
  for (DType dt : {kFloat32, kFloat64}) {
    INFO("dtype " << DTypeName(dt));
    testing::ExpectTensor(conv2d(Input(dt), Filter(dt), {1, 1, 1, 1}, "SAME", {1, 2, 2, 1}), dt,
                          {1, 5, 4, 2},
                          {-1.25,
                           -0.583333333,
                           -4.58333333,
                           2.16666667,
                           1.33333333,
                           -2.5,
                           2.16666667,
                           2.16666667,
                           -0.833333333,
                           -0.583333333,
                           -0.5,
                           1.25,
                           1.91666667,
                           -3.08333333,
                           0,
                           2.5,
                           -1.83333333,
                           1.08333333,
                           2.58333333,
                           -0.75,
                           3.75,
                           -0.833333333,
                           -4.33333333,
                           3.58333333,
                           -3.08333333,
                           0.916666667,
                           2.5,
                           -4,
                           2.66666667,
                           -0.0833333333,
                           -2.25,
                           1,
                           0,
                           0.5,
                           1.91666667,
                           0.166666667,
                           -0.5,
                           1.5,
                           -0.833333333,
                           -1.08333333},
                          1e-5);
    const Tensor x = MakeTensor(dt, {2, 4, 4, 3}, ModPattern(96, 7, 11, 5, 4));
    const Tensor f = MakeTensor(dt, {2, 2, 3, 1}, ModPattern(12, 5, 9, 4, 3));
    testing::ExpectTensor(conv2d(x, f, {2, 1}, "SAME"), dt, {2, 2, 4, 1},
                          {-0.166666667, -3.33333333, -2.83333333, -1.41666667, -0.75, -0.25, -2.5,
                           1.5, 3.25, 3.75, -1.25, 0.75, -2.83333333, 1.33333333, 2.75, 0},
                          1e-5);
  }
}

TEST_CASE("float32 and bfloat16 Conv2D agree with float64 on larger shapes") {
  const std::vector<double> x = ModPattern(2 * 9 * 8 * 5, 7, 17, 8, 7);
  const std::vector<double> f = ModPattern(3 * 3 * 5 * 7, 5, 13, 6, 5);
  for (const char* padding : {"SAME", "VALID"}) {
    for (int64_t stride : {1, 2}) {
      INFO(padding << " stride " << stride);
      const Tensor want = conv2d(MakeTensor(kFloat64, {2, 9, 8, 5}, x),
                                 MakeTensor(kFloat64, {3, 3, 5, 7}, f), {stride}, padding);
      const Tensor got = conv2d(MakeTensor(kFloat32, {2, 9, 8, 5}, x),
                                MakeTensor(kFloat32, {3, 3, 5, 7}, f), {stride}, padding);
      testing::ExpectTensorNear(got, MakeTensor(kFloat32, want.shape(), testing::ToDoubles(want)),
                                1e-5);
      const std::vector<double> xr = RoundTo(kBFloat16, x), fr = RoundTo(kBFloat16, f);
      const Tensor want_bf16 = conv2d(MakeTensor(kFloat64, {2, 9, 8, 5}, xr),
                                      MakeTensor(kFloat64, {3, 3, 5, 7}, fr), {stride}, padding);
      const Tensor got_bf16 = conv2d(MakeTensor(kBFloat16, {2, 9, 8, 5}, xr),
                                     MakeTensor(kBFloat16, {3, 3, 5, 7}, fr), {stride}, padding);
      testing::ExpectTensor(got_bf16, kBFloat16, want_bf16.shape(), testing::ToDoubles(want_bf16),
                            2e-2);
    }
  }
}

// Runs Conv2D with EXPLICIT padding (not reachable from conv2d(), which takes SAME/VALID).
Tensor ExplicitConv(const Tensor& x, const Tensor& f, std::vector<int64_t> pads) {
  const OpDef* op = OpRegistry::Global().Find("Conv2D");
  OpCall call(op, {x, f}, OpSite());
  call.attrs[op->attr_index("strides")] = std::vector<int64_t>{1, 1, 1, 1};
  call.attrs[op->attr_index("padding")] = std::string("EXPLICIT");
  call.attrs[op->attr_index("explicit_paddings")] = std::move(pads);
  return RunSingleOutputOp(call);
}

TEST_CASE("Conv2D EXPLICIT padding equal to SAME's gives SAME's result") {
  for (DType dt : {kFloat32, kFloat64}) {
    INFO("dtype " << DTypeName(dt));
    const Tensor same = conv2d(Input(dt), Filter(dt), {1}, "SAME");
    testing::ExpectTensorNear(ExplicitConv(Input(dt), Filter(dt), {0, 0, 1, 1, 1, 1, 0, 0}), same,
                              1e-6);
    testing::ExpectError(
        [&] {
          ExplicitConv(Input(dt), Filter(dt), {0, 0, 1, 1});
        },
        {"Conv2D", "explicit_paddings must be 8 non-negative values", "[0, 0, 1, 1]"});
  }
}

// Issue 37: grouped Conv2D, the input having a multiple of the filter's in_channels (Note
// [Grouped Conv2D] in ops/nn/conv_shape.cc): 4 input channels, filter (2, 2, 2, 6) = 2 groups of
// 3 output channels. Values from tf.raw_ops.Conv2D in TensorFlow 2.21; then each group against a
// Conv2D of its own channels.
TEST_CASE("Grouped Conv2D matches TensorFlow and per-group convolutions") {
  for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
    INFO("dtype " << DTypeName(dt));
    const double tol = dt == kBFloat16 ? 3e-2 : 1e-5;
    const Tensor x = MakeTensor(dt, {1, 3, 3, 4}, ModPattern(36, 7, 11, 5, 4));
    const Tensor w = MakeTensor(dt, {2, 2, 2, 6}, ModPattern(48, 5, 9, 4, 3));
    testing::ExpectTensor(conv2d(x, w, {1}, "VALID"), dt, {1, 2, 2, 6},
                          {2.833333333,  1.916666667,  2.5,   -2.75,        2.5,          -2.0,
                           -1.75,        -1.75,        -1.75, -1.25,        -0.5,         -2.0,
                           -2.666666667, -0.833333333, -2.0,  -1.916666667, -0.083333333, -2.0,
                           1.916666667,  0.083333333,  2.0,   4.166666667,  -2.166666667, 3.5},
                          tol);
    const Tensor grouped = conv2d(x, w, {1, 2, 1, 1}, "SAME");
    for (int64_t k = 0; k < 2; ++k) {
      const Tensor group =
          conv2d(slice(x, {0, 0, 0, 2 * k}, {-1, -1, -1, 2}),
                 slice(w, {0, 0, 0, 3 * k}, {-1, -1, -1, 3}), {1, 2, 1, 1}, "SAME");
      testing::ExpectTensorNear(slice(grouped, {0, 0, 0, 3 * k}, {-1, -1, -1, 3}), group, tol);
    }
  }
}

TEST_CASE("Conv2D reports bad shapes and attrs") {
  const Tensor x = Input(kFloat32);
  testing::ExpectError(
      [&] {
        conv2d(x, MakeTensor(kFloat32, {3, 3, 2}, ModPattern(18, 1, 7, 3, 1)), {1}, "SAME");
      },
      {"Conv2D", "filter must be 4-D", "(3, 3, 2)", "conv2d_test.cc"});
  testing::ExpectError([&] { conv2d(x, Filter(kFloat32), {1}, "FULL"); },
                       {"Conv2D", "attr 'padding' is \"FULL\"", "SAME, VALID, EXPLICIT"});
  testing::ExpectError(
      [&] {
        conv2d(x, MakeTensor(kFloat32, {3, 3, 3, 2}, ModPattern(54, 1, 7, 3, 1)), {1}, "SAME");
      },
      {"Conv2D",
       "input (1, 5, 4, 2) has 2 channels but filter (3, 3, 3, 2) expects a multiple of 3"});
  testing::ExpectError(
      [&] {
        conv2d(MakeTensor(kFloat32, {1, 3, 3, 4}, ModPattern(36, 7, 11, 5, 4)),
               MakeTensor(kFloat32, {2, 2, 2, 3}, ModPattern(24, 5, 9, 4, 3)), {1}, "VALID");
      },
      {"Conv2D", "2 groups of filter (2, 2, 2, 3)'s 2 in_channels, but its 3 out_channels"});
  testing::ExpectError(
      [&] {
        conv2d(x, Filter(kFloat32), {2, 1, 1, 1}, "SAME");
      },
      {"Conv2D", "strides must be [1, height, width, 1]", "[2, 1, 1, 1]"});
  testing::ExpectError(
      [&] {
        conv2d(x, Filter(kFloat32), {1}, "SAME", {1, 0, 1, 1});
      },
      {"Conv2D", "dilations must be", "[1, 0, 1, 1]"});
  testing::ExpectError(
      [&] {
        conv2d(MakeTensor(kFloat32, {5, 4, 2}, ModPattern(40, 1, 7, 3, 1)), Filter(kFloat32), {1},
               "SAME");
      },
      {"Conv2D", "input must be 4-D", "(5, 4, 2)"});
  testing::ExpectError(
      [&] {
        conv2d(MakeTensor(kFloat32, {1, 1, 4, 2}, ModPattern(8, 1, 7, 3, 1)), Filter(kFloat32), {1},
               "VALID");
      },
      {"Conv2D", "input height 1 is smaller than the window height 3 with VALID padding"});
  testing::ExpectError([&] { conv2d(x, Filter(kFloat64), {1}, "SAME"); },
                       {"Conv2D", "float64", "float32"});
}

TEST_CASE("Conv2D names its node when given a name") {
  testing::ExpectError([&] { conv2d(Input(kFloat32), Filter(kFloat32), {1}, "BAD", "conv1"); },
                       {"Conv2D", "node 'conv1'"});
}

}  // namespace
}  // namespace duet
