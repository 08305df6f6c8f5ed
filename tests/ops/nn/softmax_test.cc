// Softmax / LogSoftmax: values vs NumPy (testdata/gen_expected.py) over the last axis of a 3-D
// tensor, rows summing to 1, stability on large logits, every dtype, and errors.
#include <catch2/catch.hpp>
#include <cmath>

#include "core/constant.h"
#include "ops/nn/nn_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::MakeTensor;
using testing::ModPattern;

// Halves, exact in every dtype.
Tensor Logits(DType dt) { return MakeTensor(dt, {2, 3, 4}, ModPattern(24, 7, 11, 5, 2)); }

const std::vector<double> kSoftmax = {
    0.00534729905, 0.177078225,  0.0239649317, 0.793609544,  0.160679868,  0.0217456555,
    0.72011721,    0.0974572665, 0.0255078149, 0.844702818,  0.114318095,  0.0154712718,
    0.160679868,   0.0217456555, 0.72011721,   0.0974572665, 0.0255078149, 0.844702818,
    0.114318095,   0.0154712718, 0.568123204,  0.0768871147, 0.0104055394, 0.344584142};
const std::vector<double> kLogSoftmax = {
    -5.2311637,   -1.7311637,  -3.7311637,   -0.231163696, -1.82834129, -3.82834129,
    -0.328341289, -2.32834129, -3.66877041,  -0.168770408, -2.16877041, -4.16877041,
    -1.82834129,  -3.82834129, -0.328341289, -2.32834129,  -3.66877041, -0.168770408,
    -2.16877041,  -4.16877041, -0.565416975, -2.56541698,  -4.56541698, -1.06541698};

TEST_CASE("Softmax and LogSoftmax match NumPy over the last axis") {
  for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
    INFO("dtype " << DTypeName(dt));
    // oneDNN's float32 exp/log approximations are good to a few 1e-6.
    const double tol = dt == kBFloat16 ? 1e-2 : dt == kFloat32 ? 1e-5 : 1e-8;
    testing::ExpectTensor(softmax(Logits(dt)), dt, {2, 3, 4}, kSoftmax, tol);
    testing::ExpectTensor(log_softmax(Logits(dt)), dt, {2, 3, 4}, kLogSoftmax, tol);
  }
}

TEST_CASE("Softmax rows sum to 1 and large logits do not overflow") {
  for (DType dt : {kFloat32, kFloat64}) {
    INFO("dtype " << DTypeName(dt));
    const std::vector<double> p =
        testing::ToDoubles(softmax(MakeTensor(dt, {7, 33}, ModPattern(7 * 33, 7, 19, 9, 0.5))));
    for (int r = 0; r < 7; ++r) {
      double sum = 0;
      for (int c = 0; c < 33; ++c) sum += p[r * 33 + c];
      CHECK(std::abs(sum - 1) < 1e-6);
    }
    const double tol = dt == kFloat32 ? 1e-5 : 1e-8;
    testing::ExpectTensor(softmax(MakeTensor(dt, {3}, {1000, 1000, 990})), dt, {3},
                          {0.49998865, 0.49998865, 2.26994496e-05}, tol);
    testing::ExpectTensor(log_softmax(MakeTensor(dt, {1, 2}, {1000, 0})), dt, {1, 2}, {0, -1000},
                          tol);
  }
}

// Issue 37: a row holding NaN or +inf, or only -inf, is all NaN, as TensorFlow computes it
// (exp(x - max) with inf - inf = NaN); the other rows are unaffected. Values from
// tf.raw_ops.Softmax/LogSoftmax.
TEST_CASE("Softmax and LogSoftmax spread NaN and +inf over the row, as TensorFlow") {
  const double nan = std::nan(""), inf = INFINITY;
  const std::vector<double> x = {nan, 1, 2, inf, 1, 2, -inf, -inf, -inf, -inf, 1, 2, 0, 0, inf};
  for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
    INFO("dtype " << DTypeName(dt));
    const double tol = dt == kBFloat16 ? 1e-2 : dt == kFloat32 ? 1e-5 : 1e-8;
    testing::ExpectTensor(
        softmax(MakeTensor(dt, {5, 3}, x)), dt, {5, 3},
        {nan, nan, nan, nan, nan, nan, nan, nan, nan, 0, 0.268941421, 0.731058579, nan, nan, nan},
        tol);
    testing::ExpectTensor(log_softmax(MakeTensor(dt, {5, 3}, x)), dt, {5, 3},
                          {nan, nan, nan, nan, nan, nan, nan, nan, nan, -inf, -1.31326169,
                           -0.313261687, nan, nan, nan},
                          tol);
  }
}

TEST_CASE("Softmax accepts 1-D and empty inputs") {
  testing::ExpectTensor(softmax(MakeTensor(kFloat32, {2}, {0, 0})), kFloat32, {2}, {0.5, 0.5});
  testing::ExpectTensor(softmax(MakeTensor(kFloat64, {0, 3}, {})), kFloat64, {0, 3}, {});
}

TEST_CASE("Softmax rejects scalars and integer logits") {
  testing::ExpectError([&] { softmax(constant(1.f)); },
                       {"Softmax", "logits must be at least 1-D", "()", "softmax_test.cc"});
  testing::ExpectError(
      [&] {
        log_softmax(constant({1, 2}));
      },
      {"LogSoftmax", "dtype int32 is not supported"});
}

}  // namespace
}  // namespace duet
