// MaxPool / AvgPool through max_pool() / avg_pool(): values vs NumPy (testdata/gen_expected.py)
// for SAME/VALID at strides 1 and 2 with a 3x2 window, every dtype, and errors.
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::MakeTensor;
using testing::ModPattern;

// The gen_expected.py input (1, 5, 4, 2); its values are quarters, exact in bfloat16 too.
Tensor Input(DType dt) { return MakeTensor(dt, {1, 5, 4, 2}, ModPattern(40, 7, 11, 5, 4)); }

TEST_CASE("MaxPool matches NumPy with SAME and VALID at strides 1 and 2") {
  for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
    INFO("dtype " << DTypeName(dt));
    testing::ExpectTensor(
        max_pool(Input(dt), {1, 3, 2, 1}, {1, 1, 1, 1}, "SAME"), dt, {1, 5, 4, 2},
        {-0.25, 1.25, 0.5,   1.25, 1.25, 0.25, 1.25, 0.25, 0,    1.25, 0.75,  1.25, 1.25, 0.5,
         1.25,  0.5,  0.25,  1.25, 1,    0,    1.25, 0.75, 1.25, 0.75, 0.5,   1.25, 1.25, 0.25,
         1.25,  1,    -0.75, 1,    0.5,  1.25, 1.25, 0.25, 1.25, 1,    -0.75, 1});
    testing::ExpectTensor(max_pool(Input(dt), {3, 2}, {2}, "SAME"), dt, {1, 3, 2, 2},
                          {-0.25, 1.25, 1.25, 0.25, 0.25, 1.25, 1.25, 0.75, 0.5, 1.25, 1.25, 1});
    testing::ExpectTensor(max_pool(Input(dt), {3, 2}, {1}, "VALID"), dt, {1, 3, 3, 2},
                          {0, 1.25, 0.75, 1.25, 1.25, 0.5, 0.25, 1.25, 1, 0, 1.25, 0.75, 0.5, 1.25,
                           1.25, 0.25, 1.25, 1});
    testing::ExpectTensor(max_pool(Input(dt), {3, 2}, {2}, "VALID"), dt, {1, 2, 2, 2},
                          {0, 1.25, 1.25, 0.5, 0.5, 1.25, 1.25, 1});
  }
}

TEST_CASE("AvgPool matches NumPy, leaving SAME padding out of the average") {
  for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
    INFO("dtype " << DTypeName(dt));
    const double tol = dt == kBFloat16 ? 1e-2 : 1e-6;
    testing::ExpectTensor(avg_pool(Input(dt), {1, 3, 2, 1}, {1, 1, 1, 1}, "SAME"), dt, {1, 5, 4, 2},
                          {-0.75,
                           0.3125,
                           0,
                           -0.3125,
                           0.75,
                           -0.25,
                           1.125,
                           0.125,
                           -0.625,
                           0.208333333,
                           0.125,
                           -0.416666667,
                           0.416666667,
                           -0.125,
                           0.333333333,
                           0.25,
                           -0.375,
                           0,
                           0.375,
                           -0.625,
                           0.208333333,
                           0.125,
                           -0.333333333,
                           0.5,
                           -0.125,
                           -0.208333333,
                           0.625,
                           -0.375,
                           0,
                           0.375,
                           -1,
                           0.75,
                           0,
                           -0.3125,
                           0.75,
                           -0.25,
                           0.125,
                           0.5,
                           -0.875,
                           0.875},
                          tol);
    testing::ExpectTensor(
        avg_pool(Input(dt), {3, 2}, {2}, "SAME"), dt, {1, 3, 2, 2},
        {-0.75, 0.3125, 0.75, -0.25, -0.375, 0, 0.208333333, 0.125, 0, -0.3125, 0.125, 0.5}, tol);
    testing::ExpectTensor(
        avg_pool(Input(dt), {3, 2}, {1}, "VALID"), dt, {1, 3, 3, 2},
        {-0.625, 0.208333333, 0.125, -0.416666667, 0.416666667, -0.125, -0.375, 0, 0.375, -0.625,
         0.208333333, 0.125, -0.125, -0.208333333, 0.625, -0.375, 0, 0.375},
        tol);
    testing::ExpectTensor(
        avg_pool(Input(dt), {3, 2}, {2}, "VALID"), dt, {1, 2, 2, 2},
        {-0.625, 0.208333333, 0.416666667, -0.125, -0.125, -0.208333333, 0, 0.375}, tol);
  }
}

TEST_CASE("float32 and float64 pooling agree on a larger batch") {
  const std::vector<double> x = ModPattern(3 * 9 * 7 * 6, 7, 17, 8, 7);
  for (const char* padding : {"SAME", "VALID"}) {
    INFO(padding);
    const Tensor x32 = MakeTensor(kFloat32, {3, 9, 7, 6}, x),
                 x64 = MakeTensor(kFloat64, {3, 9, 7, 6}, x);
    const Tensor max64 = max_pool(x64, {3}, {2}, padding),
                 avg64 = avg_pool(x64, {2, 3}, {1, 2}, padding);
    testing::ExpectTensor(max_pool(x32, {3}, {2}, padding), kFloat32, max64.shape(),
                          testing::ToDoubles(max64), 1e-6);
    testing::ExpectTensor(avg_pool(x32, {2, 3}, {1, 2}, padding), kFloat32, avg64.shape(),
                          testing::ToDoubles(avg64), 1e-6);
  }
}

TEST_CASE("MaxPool with EXPLICIT padding equal to SAME's gives SAME's result") {
  const OpDef* op = OpRegistry::Global().Find("MaxPool");
  for (DType dt : {kFloat32, kFloat64}) {
    OpCall call(op, {Input(dt)}, OpSite());
    call.attrs[op->attr_index("ksize")] = std::vector<int64_t>{1, 3, 2, 1};
    call.attrs[op->attr_index("strides")] = std::vector<int64_t>{1, 1, 1, 1};
    call.attrs[op->attr_index("padding")] = std::string("EXPLICIT");
    call.attrs[op->attr_index("explicit_paddings")] = std::vector<int64_t>{0, 0, 1, 1, 0, 1, 0, 0};
    testing::ExpectTensorNear(RunSingleOutputOp(call), max_pool(Input(dt), {3, 2}, {1}, "SAME"), 0);
  }
}

TEST_CASE("pooling reports bad shapes and attrs") {
  const Tensor x = Input(kFloat32);
  testing::ExpectError(
      [&] {
        max_pool(x, {3, 2}, {1}, "FULL");
      },
      {"MaxPool", "attr 'padding' is \"FULL\"", "pooling_test.cc"});
  testing::ExpectError(
      [&] {
        avg_pool(x, {3, 2}, {1}, "EXPLICIT");
      },
      {"AvgPool", "attr 'padding' is \"EXPLICIT\"", "SAME, VALID"});
  testing::ExpectError(
      [&] {
        max_pool(x, {2, 3, 2, 1}, {1}, "SAME");
      },
      {"MaxPool", "ksize must be [1, height, width, 1]", "[2, 3, 2, 1]"});
  testing::ExpectError(
      [&] {
        avg_pool(x, {3, 2}, {1, 0}, "SAME");
      },
      {"AvgPool", "strides must be", "[1, 1, 0, 1]"});
  testing::ExpectError(
      [&] {
        max_pool(MakeTensor(kFloat32, {2, 2}, {1, 2, 3, 4}), {2}, {1}, "SAME");
      },
      {"MaxPool", "input must be 4-D", "(2, 2)"});
  testing::ExpectError(
      [&] {
        avg_pool(x, {1, 6}, {1}, "VALID");
      },
      {"AvgPool", "input width 4 is smaller than the window width 6"});
  testing::ExpectError([&] { max_pool(constant({{{{1}}}}), {1}, {1}, "SAME"); },
                       {"MaxPool", "dtype int32 is not supported"});
}

}  // namespace
}  // namespace duet
