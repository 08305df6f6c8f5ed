// Softmax / LogSoftmax: values vs NumPy (testdata/gen_expected.py) over the last axis of a 3-D
// tensor, rows summing to 1, stability on large logits, every dtype, and errors.
#include <catch2/catch.hpp>
#include <cmath>

#include "core/constant.h"
#include "ops/nn/nn_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

// ((i * mul) % mod - shift) / div: the inputs gen_expected.py uses.
std::vector<double> Pattern(int64_t n, int mul, int mod, int shift, double div) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = ((i * mul) % mod - shift) / div;
  return v;
}

Tensor Make(const std::vector<double>& values, const Shape& shape, DType dtype) {
  if (dtype == kFloat64) return from_vector(values, shape);
  if (dtype == kFloat32)
    return from_vector(std::vector<float>(values.begin(), values.end()), shape);
  std::vector<bfloat16> v;
  for (double x : values) v.push_back(bfloat16(static_cast<float>(x)));
  return from_vector(v, shape);
}

// Halves, exact in every dtype.
Tensor Logits(DType dt) { return Make(Pattern(24, 7, 11, 5, 2), {2, 3, 4}, dt); }

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
        testing::ToDoubles(softmax(Make(Pattern(7 * 33, 7, 19, 9, 0.5), {7, 33}, dt)));
    for (int r = 0; r < 7; ++r) {
      double sum = 0;
      for (int c = 0; c < 33; ++c) sum += p[r * 33 + c];
      CHECK(std::abs(sum - 1) < 1e-6);
    }
    const double tol = dt == kFloat32 ? 1e-5 : 1e-8;
    testing::ExpectTensor(softmax(Make({1000, 1000, 990}, {3}, dt)), dt, {3},
                          {0.49998865, 0.49998865, 2.26994496e-05}, tol);
    testing::ExpectTensor(log_softmax(Make({1000, 0}, {1, 2}, dt)), dt, {1, 2}, {0, -1000}, tol);
  }
}

TEST_CASE("Softmax accepts 1-D and empty inputs") {
  testing::ExpectTensor(softmax(Make({0, 0}, {2}, kFloat32)), kFloat32, {2}, {0.5, 0.5});
  testing::ExpectTensor(softmax(Make({}, {0, 3}, kFloat64)), kFloat64, {0, 3}, {});
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
