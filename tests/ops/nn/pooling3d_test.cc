// MaxPool3D / AvgPool3D and their gradients (MaxPool3DGrad, AvgPool3DGrad, MaxPool3DGradGrad)
// through max_pool3d() / avg_pool3d() / max_pool3d_grad() / avg_pool3d_grad() /
// max_pool3d_grad_grad(): values vs TensorFlow (testdata/gen_3d_expected.py) for SAME (window
// 2x3x2, stride 2) and VALID (window 2, stride 1) on a batch of 2 with 2 channels, every dtype,
// oneDNN vs the float64 loops, the adjoint identity, and errors.
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

using testing::MakeTensor;
using testing::ModPattern;
using testing::ToDoubles;

const Shape kInputShape = {2, 3, 4, 3, 2};

// The gen_3d_expected.py input: distinct eighths (no ties in any window), exact in bfloat16.
Tensor Input(DType dt) {
  return MakeTensor(dt, kInputShape, ModPattern(kInputShape.num_elements(), 37, 149, 70, 8));
}
// Upstream gradients: halves.
Tensor Grad(DType dt, const Shape& s) {
  return MakeTensor(dt, s, ModPattern(s.num_elements(), 3, 7, 3, 2));
}

std::vector<double> Expected(const std::string& key) {
  return testing::FixtureValues(testing::Testdata("ops/nn", "ops3d_expected.txt"), key);
}

struct PoolCase {
  std::string padding;
  std::vector<int64_t> ksize, strides;
  Shape pooled;
};

const PoolCase kCases[] = {{"SAME", {2, 3, 2}, {2}, {2, 2, 2, 2, 2}},
                           {"VALID", {2}, {1}, {2, 2, 3, 2, 2}}};

double Tol(DType dt) { return dt == kBFloat16 ? 2e-2 : 1e-6; }

TEST_CASE("MaxPool3D and AvgPool3D match TensorFlow with SAME and VALID") {
  for (const PoolCase& c : kCases) {
    for (DType dt : {kFloat32, kBFloat16}) {
      INFO(c.padding << " " << DTypeName(dt));
      testing::ExpectTensor(max_pool3d(Input(dt), c.ksize, c.strides, c.padding), dt, c.pooled,
                            Expected("MaxPool3D " + c.padding), 0);
    }
    for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
      INFO(c.padding << " " << DTypeName(dt));
      testing::ExpectTensor(avg_pool3d(Input(dt), c.ksize, c.strides, c.padding), dt, c.pooled,
                            Expected("AvgPool3D " + c.padding), Tol(dt));
    }
  }
}

TEST_CASE("MaxPool3D takes the 5-entry attrs the shorthand expands to") {
  const Tensor x = Input(kFloat32);
  testing::ExpectTensorNear(max_pool3d(x, {1, 2, 3, 2, 1}, {1, 2, 2, 2, 1}, "SAME"),
                            max_pool3d(x, {2, 3, 2}, {2}, "SAME"), 0);
}

TEST_CASE("MaxPool3D gradients match TensorFlow") {
  for (const PoolCase& c : kCases) {
    for (DType dt : {kFloat32, kBFloat16}) {
      INFO(c.padding << " " << DTypeName(dt));
      const Tensor x = Input(dt);
      const Tensor y = max_pool3d(x, c.ksize, c.strides, c.padding);
      testing::ExpectTensor(
          max_pool3d_grad(x, y, Grad(dt, c.pooled), c.ksize, c.strides, c.padding), dt, kInputShape,
          Expected("MaxPool3DGrad " + c.padding), Tol(dt));
    }
    for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
      INFO(c.padding << " " << DTypeName(dt));
      // orig_output is only shape-checked; MaxPool3D has no float64, so take it in float32.
      const Tensor y = cast(max_pool3d(Input(kFloat32), c.ksize, c.strides, c.padding), dt);
      const Tensor ddx =
          MakeTensor(dt, kInputShape, ModPattern(kInputShape.num_elements(), 5, 11, 5, 4));
      testing::ExpectTensor(max_pool3d_grad_grad(Input(dt), y, ddx, c.ksize, c.strides, c.padding),
                            dt, c.pooled, Expected("MaxPool3DGradGrad " + c.padding), 0);
    }
  }
}

TEST_CASE("AvgPool3DGrad matches TensorFlow") {
  for (const PoolCase& c : kCases) {
    for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
      INFO(c.padding << " " << DTypeName(dt));
      testing::ExpectTensor(
          avg_pool3d_grad(kInputShape, Grad(dt, c.pooled), c.ksize, c.strides, c.padding), dt,
          kInputShape, Expected("AvgPool3DGrad " + c.padding), Tol(dt));
    }
  }
}

// <avg_pool3d(x), g> = <x, avg_pool3d_grad(g)>, on a shape where windows overlap and SAME pads
// unevenly.
TEST_CASE("AvgPool3DGrad is the adjoint of AvgPool3D, float32 agreeing with float64") {
  const Shape shape = {3, 5, 4, 6, 3};
  const std::vector<double> x = ModPattern(shape.num_elements(), 7, 17, 8, 7);
  for (const char* padding : {"SAME", "VALID"}) {
    INFO(padding);
    const Tensor x64 = MakeTensor(kFloat64, shape, x);
    const Tensor y64 = avg_pool3d(x64, {3, 2, 3}, {2, 1, 2}, padding);
    testing::ExpectTensor(avg_pool3d(MakeTensor(kFloat32, shape, x), {3, 2, 3}, {2, 1, 2}, padding),
                          kFloat32, y64.shape(), ToDoubles(y64), 1e-6);
    const Tensor g = Grad(kFloat64, y64.shape());
    const Tensor dx64 = avg_pool3d_grad(shape, g, {3, 2, 3}, {2, 1, 2}, padding);
    CHECK(testing::Dot(y64, g) == Approx(testing::Dot(x64, dx64)).epsilon(1e-12));
    testing::ExpectTensor(avg_pool3d_grad(shape, cast(g, kFloat32), {3, 2, 3}, {2, 1, 2}, padding),
                          kFloat32, shape, ToDoubles(dx64), 1e-6);
  }
}

// A MaxPool3D call with data_format set (max_pool3d() leaves the default, NDHWC).
Tensor MaxPool3DWithFormat(const Tensor& x, const std::string& data_format) {
  const OpDef* op = OpRegistry::Global().Find("MaxPool3D");
  OpCall call(op, {x}, OpSite());
  call.attrs[op->attr_index("ksize")] = std::vector<int64_t>{1, 2, 2, 2, 1};
  call.attrs[op->attr_index("strides")] = std::vector<int64_t>{1, 1, 1, 1, 1};
  call.attrs[op->attr_index("padding")] = std::string("VALID");
  call.attrs[op->attr_index("data_format")] = data_format;
  return RunSingleOutputOp(call);
}

TEST_CASE("3-D pooling reports bad shapes, attrs and dtypes") {
  const Tensor x = Input(kFloat32);
  testing::ExpectError([&] { MaxPool3DWithFormat(x, "NCDHW"); },
                       {"MaxPool3D", "attr 'data_format' is \"NCDHW\"", "NDHWC"});
  testing::ExpectError(
      [&] {
        max_pool3d(x, {2, 2, 2, 1}, {1}, "SAME");
      },
      {"MaxPool3D", "ksize must be [1, depth, height, width, 1]", "[2, 2, 2, 1]"});
  testing::ExpectError(
      [&] {
        avg_pool3d(x, {2}, {1, 0, 1}, "SAME");
      },
      {"AvgPool3D", "strides must be", "[1, 1, 0, 1, 1]"});
  testing::ExpectError([&] { avg_pool3d(x, {2}, {1}, "EXPLICIT"); },
                       {"AvgPool3D", "attr 'padding' is \"EXPLICIT\""});
  testing::ExpectError(
      [&] {
        max_pool3d(MakeTensor(kFloat32, {1, 4, 4, 2}, ModPattern(32, 1, 5, 2, 1)), {2}, {1},
                   "SAME");
      },
      {"MaxPool3D", "input must be 5-D (batch, depth, height, width, channels)", "(1, 4, 4, 2)"});
  testing::ExpectError(
      [&] {
        avg_pool3d(x, {5, 1, 1}, {1}, "VALID");
      },
      {"AvgPool3D", "input depth 3 is smaller than the window depth 5"});
  testing::ExpectError([&] { max_pool3d(Input(kFloat64), {2}, {1}, "SAME"); },
                       {"MaxPool3D", "float64"});
  const Tensor y = max_pool3d(x, {2}, {1}, "VALID");
  testing::ExpectError(
      [&] {
        max_pool3d_grad(x, y, Grad(kFloat32, {2, 2, 3, 2, 1}), {2}, {1}, "VALID");
      },
      {"MaxPool3DGrad", "grad shape (2, 2, 3, 2, 1) does not match the pooling output shape",
       "(2, 2, 3, 2, 2)"});
  testing::ExpectError(
      [&] { max_pool3d_grad(x, y, Grad(kBFloat16, y.shape()), {2}, {1}, "VALID"); },
      {"MaxPool3DGrad", "must have grad's dtype"});
  testing::ExpectError(
      [&] {
        avg_pool3d_grad({2, 3, 4, 3}, Grad(kFloat32, y.shape()), {2}, {1}, "VALID");
      },
      {"AvgPool3DGrad", "orig_input_shape must be a 1-D tensor of 5 values"});
}

}  // namespace
}  // namespace duet
