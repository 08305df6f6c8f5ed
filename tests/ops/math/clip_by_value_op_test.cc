// ClipByValue: scalar and full-shape bounds against TensorFlow, every dtype, NaN, the threaded
// path, and the bound-shape errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "core/constant.h"
#include "ops/math/math_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::MakeTensor;

// Made by testdata/gen_erfinv_l2_clip_expected.py with tf.clip_by_value.
const std::vector<double> kT = {-3.0, -0.5, 0.0, 0.25, 2.0, 7.5};
const std::vector<double> kLo = {-4.0, 0.0, 0.5, 0.0, 2.5, -1.0};
const std::vector<double> kHi = {-3.5, 1.0, 1.0, 0.2, 3.0, 7.0};

// 0.2 is not exact in the 16-bit types.
double Tol(DType dtype) { return dtype == kBFloat16 ? 4e-3 : dtype == kFloat16 ? 1e-3 : 1e-6; }

TEST_CASE("ClipByValue matches TensorFlow with scalar and full-shape bounds") {
  for (DType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    INFO(DTypeName(dtype));
    const Tensor t = MakeTensor(dtype, {2, 3}, kT);
    testing::ExpectTensor(clip_by_value(t, MakeTensor(dtype, {}, {-1}), MakeTensor(dtype, {}, {2})),
                          dtype, {2, 3}, {-1.0, -0.5, 0.0, 0.25, 2.0, 2.0});
    testing::ExpectTensor(
        clip_by_value(t, MakeTensor(dtype, {2, 3}, kLo), MakeTensor(dtype, {2, 3}, kHi)), dtype,
        {2, 3}, {-3.5, 0.0, 0.5, 0.2, 2.5, 7.0}, Tol(dtype));
    // One scalar, one full-shape bound; where hi < lo, lo wins (TensorFlow: max(min(t, hi), lo)).
    testing::ExpectTensor(
        clip_by_value(t, MakeTensor(dtype, {}, {0}), MakeTensor(dtype, {2, 3}, kHi)), dtype, {2, 3},
        {0, 0, 0, 0.2, 2.0, 7.0}, Tol(dtype));
  }
  for (DType dtype : {kInt32, kInt64}) {
    INFO(DTypeName(dtype));
    const Tensor t = MakeTensor(dtype, {5}, {-7, -1, 0, 3, 9});
    testing::ExpectTensor(clip_by_value(t, MakeTensor(dtype, {}, {-2}), MakeTensor(dtype, {}, {4})),
                          dtype, {5}, {-2, -1, 0, 3, 4});
  }
}

TEST_CASE("ClipByValue propagates NaN and covers the threaded path") {
  const double nan = std::nan("");
  testing::ExpectTensor(clip_by_value(constant({nan, 5.0, -5.0}), constant(-1.0), constant(1.0)),
                        kFloat64, {3}, {nan, 1, -1});
  testing::ExpectTensor(clip_by_value(constant({0.5, 5.0}), constant(nan), constant(1.0)), kFloat64,
                        {2}, {nan, nan});
  testing::ExpectTensor(clip_by_value(constant({-3, 5}), constant(0), constant(-2)), kInt32, {2},
                        {0, 0});
  const int64_t n = 100003;
  std::vector<float> v(n);
  std::vector<double> expected(n);
  for (int64_t i = 0; i < n; ++i) {
    v[i] = static_cast<float>((i * 37) % 101 - 50);
    expected[i] = std::min<double>(std::max<double>(v[i], -10), 20);
  }
  testing::ExpectTensor(clip_by_value(from_vector(v, {n}), constant(-10.f), constant(20.f)),
                        kFloat32, {n}, expected, 0);
  testing::ExpectTensor(clip_by_value(zeros({0, 2}), constant(0.f), constant(1.f)), kFloat32,
                        {0, 2}, {});
}

TEST_CASE("ClipByValue reports bounds of another shape, and mixed dtypes") {
  const Tensor t = zeros({2, 3});
  testing::ExpectError(
      [&] { clip_by_value(t, zeros({3}), constant(1.f)); },
      {"ClipByValue", "clip_value_min must be a scalar or have t's shape (2, 3), got shape (3,)",
       "clip_by_value_op_test.cc"});
  testing::ExpectError(
      [&] {
        clip_by_value(t, constant(0.f), zeros({2, 1}));
      },
      {"ClipByValue", "clip_value_max must be a scalar or have t's shape (2, 3)"});
  testing::ExpectError([&] { clip_by_value(t, constant(0.0), constant(1.f)); },
                       {"ClipByValue", "float64"});
  testing::ExpectError(
      [&] { clip_by_value(zeros({2}, kBool), zeros({}, kBool), zeros({}, kBool)); },
      {"ClipByValue", "dtype bool is not supported"});
}

}  // namespace
}  // namespace duet
