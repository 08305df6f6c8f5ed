// Conv3D, Conv3DBackpropInputV2 and Conv3DBackpropFilterV2 through conv3d() /
// conv3d_backprop_input() / conv3d_backprop_filter(): values vs NumPy loops checked against
// TensorFlow (testdata/gen_3d_expected.py) for SAME and VALID padding, strides, dilations, a batch
// of 2 and 2 -> 3 channels, in every dtype; the adjoint identities in float64; oneDNN (float32,
// bfloat16) against the Eigen float64 path on larger shapes; empty sums; and errors.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/constant.h"
#include "ops/math/math_ops.h"
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

const Shape kInput = {2, 4, 3, 5, 2};
const Shape kFilter = {2, 3, 2, 2, 3};

struct ConvCase {
  std::string key;  // the case's name in ops3d_expected.txt
  std::vector<int64_t> strides;
  std::string padding;
  std::vector<int64_t> dilations;
  Shape output;
};

const ConvCase kCases[] = {
    {"SAME", {1}, "SAME", {1}, {2, 4, 3, 5, 3}},
    {"SAME_strides_212", {2, 1, 2}, "SAME", {1}, {2, 2, 3, 3, 3}},
    {"VALID_dilations_212", {1}, "VALID", {2, 1, 2}, {2, 2, 1, 3, 3}},
    {"VALID_strides_221", {2, 2, 1}, "VALID", {1}, {2, 2, 1, 4, 3}},
};

// The gen_3d_expected.py operands: quarters, exact in bfloat16; halves for out_backprop.
Tensor Input(DType dt) {
  return MakeTensor(dt, kInput, ModPattern(kInput.num_elements(), 7, 11, 5, 4));
}
Tensor Filter(DType dt) {
  return MakeTensor(dt, kFilter, ModPattern(kFilter.num_elements(), 5, 7, 3, 4));
}
Tensor OutBackprop(DType dt, const Shape& s) {
  return MakeTensor(dt, s, ModPattern(s.num_elements(), 3, 7, 3, 2));
}

std::vector<double> Expected(const std::string& op, const ConvCase& c) {
  return testing::FixtureValues(testing::Testdata("ops/nn", "ops3d_expected.txt"),
                                op + " " + c.key);
}

// bfloat16 keeps 8 bits: sums of up to 24 products of quarters are off by a few of their last bits.
double Tol(DType dt) { return dt == kBFloat16 ? 3e-2 : 1e-9; }

TEST_CASE("Conv3D and its backprops match the references") {
  for (const ConvCase& c : kCases) {
    for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
      INFO(c.key << " " << DTypeName(dt));
      const double tol = dt == kFloat32 ? 1e-6 : Tol(dt);
      testing::ExpectTensor(conv3d(Input(dt), Filter(dt), c.strides, c.padding, c.dilations), dt,
                            c.output, Expected("Conv3D", c), tol);
      const Tensor dy = OutBackprop(dt, c.output);
      testing::ExpectTensor(
          conv3d_backprop_input(kInput, Filter(dt), dy, c.strides, c.padding, c.dilations), dt,
          kInput, Expected("Conv3DBackpropInputV2", c), tol);
      testing::ExpectTensor(
          conv3d_backprop_filter(Input(dt), kFilter, dy, c.strides, c.padding, c.dilations), dt,
          kFilter, Expected("Conv3DBackpropFilterV2", c), tol);
    }
  }
}

TEST_CASE("conv3d takes the 5-entry attrs the shorthand expands to") {
  testing::ExpectTensorNear(
      conv3d(Input(kFloat64), Filter(kFloat64), {1, 2, 1, 2, 1}, "SAME", {1, 1, 1, 1, 1}),
      conv3d(Input(kFloat64), Filter(kFloat64), {2, 1, 2}, "SAME"), 0);
}

// Irregular values in [-1, 1] of `shape`.
Tensor Irregular(const Shape& shape, int mul) {
  return MakeTensor(kFloat64, shape, ModPattern(shape.num_elements(), mul, 19, 9, 9));
}

// Larger shapes, 3 images, 4 -> 5 channels, unequal windows.
TEST_CASE("Conv3D's backprops are its adjoints; oneDNN agrees with the float64 Eigen path") {
  const Shape in = {3, 5, 6, 4, 4}, filter = {3, 2, 3, 4, 5};
  const Tensor x = Irregular(in, 7);
  const Tensor f = Irregular(filter, 5);
  for (const char* padding : {"SAME", "VALID"}) {
    for (const std::vector<int64_t>& dilations : {std::vector<int64_t>{1}, {1, 2, 1}}) {
      INFO(padding << " dilations " << dilations.size());
      const std::vector<int64_t> strides = {2, 1, 2};
      const Tensor y = conv3d(x, f, strides, padding, dilations);
      const Tensor g = Irregular(y.shape(), 3);
      const Tensor dx = conv3d_backprop_input(in, f, g, strides, padding, dilations);
      const Tensor df = conv3d_backprop_filter(x, filter, g, strides, padding, dilations);
      const double lhs = Dot(y, g);
      CHECK(Dot(x, dx) == Approx(lhs).epsilon(1e-12));
      CHECK(Dot(f, df) == Approx(lhs).epsilon(1e-12));
      for (DType dt : {kFloat32, kBFloat16}) {
        INFO(DTypeName(dt));
        // bfloat16 rounds the operands to 8 bits: sums of ~100 products drift by ~1e-1.
        const double tol = dt == kFloat32 ? 1e-5 : 2e-1;
        testing::ExpectTensorNear(
            cast(conv3d(cast(x, dt), cast(f, dt), strides, padding, dilations), kFloat64), y, tol);
        testing::ExpectTensorNear(
            cast(conv3d_backprop_input(in, cast(f, dt), cast(g, dt), strides, padding, dilations),
                 kFloat64),
            dx, tol);
        testing::ExpectTensorNear(cast(conv3d_backprop_filter(cast(x, dt), filter, cast(g, dt),
                                                              strides, padding, dilations),
                                       kFloat64),
                                  df, tol * 4);
      }
    }
  }
}

TEST_CASE("Conv3D with no input channels or an empty batch gives zeros or nothing") {
  for (DType dt : {kFloat32, kFloat64}) {
    INFO(DTypeName(dt));
    const Tensor y = conv3d(zeros({1, 2, 2, 2, 0}, dt), zeros({1, 1, 1, 0, 3}, dt), {1}, "SAME");
    testing::ExpectTensor(y, dt, {1, 2, 2, 2, 3}, std::vector<double>(24, 0.0));
    CHECK(conv3d(zeros({0, 2, 2, 2, 1}, dt), zeros({1, 1, 1, 1, 3}, dt), {1}, "SAME").shape() ==
          Shape{0, 2, 2, 2, 3});
    testing::ExpectTensor(conv3d_backprop_filter(zeros({0, 2, 2, 2, 1}, dt), {1, 1, 1, 1, 2},
                                                 zeros({0, 2, 2, 2, 2}, dt), {1}, "SAME"),
                          dt, {1, 1, 1, 1, 2}, {0, 0});
  }
}

// A Conv3D call with data_format set (conv3d() leaves the default, NDHWC).
Tensor Conv3DWithFormat(const Tensor& x, const Tensor& f, const std::string& data_format) {
  const OpDef* op = OpRegistry::Global().Find("Conv3D");
  OpCall call(op, {x, f}, OpSite());
  call.attrs[op->attr_index("strides")] = std::vector<int64_t>{1, 1, 1, 1, 1};
  call.attrs[op->attr_index("padding")] = std::string("SAME");
  call.attrs[op->attr_index("data_format")] = data_format;
  return RunSingleOutputOp(call);
}

TEST_CASE("Conv3D and its backprops report bad shapes and attrs") {
  const Tensor x = Input(kFloat32), f = Filter(kFloat32);
  testing::ExpectError([&] { Conv3DWithFormat(x, f, "NCDHW"); },
                       {"Conv3D", "attr 'data_format' is \"NCDHW\"", "NDHWC"});
  testing::ExpectError(
      [&] {
        conv3d(x, f, {1, 1}, "SAME");
      },
      {"Conv3D", "strides must be [1, depth, height, width, 1]", "[1, 1]"});
  testing::ExpectError(
      [&] {
        conv3d(x, f, {1}, "SAME", {1, 0, 1});
      },
      {"Conv3D", "dilations must be", "[1, 1, 0, 1, 1]"});
  testing::ExpectError([&] { conv3d(x, f, {1}, "EXPLICIT"); },
                       {"Conv3D", "attr 'padding' is \"EXPLICIT\""});
  testing::ExpectError(
      [&] {
        conv3d(x, MakeTensor(kFloat32, {2, 3, 2, 3}, ModPattern(36, 1, 5, 2, 1)), {1}, "SAME");
      },
      {"Conv3D", "filter must be 5-D (depth, height, width, in_channels, out_channels)",
       "(2, 3, 2, 3)"});
  testing::ExpectError(
      [&] {
        conv3d(MakeTensor(kFloat32, {4, 3, 5, 2}, ModPattern(120, 1, 5, 2, 1)), f, {1}, "SAME");
      },
      {"Conv3D", "input must be 5-D (batch, depth, height, width, channels)", "(4, 3, 5, 2)"});
  testing::ExpectError(
      [&] {
        conv3d(x, MakeTensor(kFloat32, {1, 1, 1, 3, 2}, ModPattern(6, 1, 5, 2, 1)), {1}, "SAME");
      },
      {"Conv3D", "has 2 channels but filter (1, 1, 1, 3, 2) expects 3"});
  testing::ExpectError(
      [&] {
        conv3d(x, f, {1}, "VALID", {6, 1, 1});
      },
      {"Conv3D", "input depth 4 is smaller than the dilated window depth 7"});
  const Tensor dy = OutBackprop(kFloat32, {2, 4, 3, 5, 3});
  testing::ExpectError(
      [&] { conv3d_backprop_input(kInput, f, dy, {2}, "SAME"); },
      {"Conv3DBackpropInputV2", "out_backprop shape (2, 4, 3, 5, 3) does not match the Conv3D",
       "(2, 2, 2, 3, 3)", "strides [1, 2, 2, 2, 1]"});
  testing::ExpectError(
      [&] {
        conv3d_backprop_filter(x, {2, 3, 2, 2}, dy, {1}, "SAME");
      },
      {"Conv3DBackpropFilterV2", "filter_sizes must be a 1-D tensor of 5 values"});
}

}  // namespace
}  // namespace duet
