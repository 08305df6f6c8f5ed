// IsNan, IsInf, IsFinite and CheckNumerics: every float dtype (NaN, both infinities, the largest
// finite values, denormals, vector tails of every length), CheckNumerics' pass-through and its
// errors, and unsupported dtypes.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "core/constant.h"
#include "ops/math/math_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::MakeTensor;

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::nan("");
const std::vector<DType> kAllFloats = {kFloat32, kFloat64, kFloat16, kBFloat16};

TEST_CASE("IsNan, IsInf and IsFinite classify every float dtype like NumPy") {
  // np.isnan / np.isinf / np.isfinite of these values, in every dtype (65504 is float16's
  // largest finite value; 1e-40 is a float32 denormal).
  const std::vector<double> x = {0, -1.5, kNaN, kInf, -kInf, 65504, -kNaN, 1e-40};
  for (DType dtype : kAllFloats) {
    INFO(DTypeName(dtype));
    const Tensor t = MakeTensor(dtype, {2, 4}, x);
    testing::ExpectTensor(is_nan(t), kBool, {2, 4}, {0, 0, 1, 0, 0, 0, 1, 0});
    testing::ExpectTensor(is_inf(t), kBool, {2, 4}, {0, 0, 0, 1, 1, 0, 0, 0});
    testing::ExpectTensor(is_finite(t), kBool, {2, 4}, {1, 1, 0, 0, 0, 1, 0, 1});
  }
  // The largest finite values are finite; empty and scalar inputs.
  testing::ExpectTensor(
      is_finite(constant({std::numeric_limits<float>::max(), -std::numeric_limits<float>::max()})),
      kBool, {2}, {1, 1});
  testing::ExpectTensor(is_inf(constant(std::numeric_limits<double>::max())), kBool, {}, {0});
  testing::ExpectTensor(is_nan(zeros({0, 3})), kBool, {0, 3}, {});
}

TEST_CASE("IsNan, IsInf and IsFinite agree with the C library at every length and position") {
  for (int n = 1; n <= 40; ++n) {
    std::vector<double> v(n);
    for (int i = 0; i < n; ++i) v[i] = i % 3 == 0 ? kNaN : i % 3 == 1 ? (i % 2 ? kInf : -kInf) : i;
    std::vector<double> nan(n), inf(n), fin(n);
    for (int i = 0; i < n; ++i) {
      nan[i] = std::isnan(v[i]);
      inf[i] = std::isinf(v[i]);
      fin[i] = std::isfinite(v[i]);
    }
    for (DType dtype : kAllFloats) {
      INFO(DTypeName(dtype) << " n " << n);
      const Tensor t = MakeTensor(dtype, {n}, v);
      testing::ExpectTensor(is_nan(t), kBool, {n}, nan);
      testing::ExpectTensor(is_inf(t), kBool, {n}, inf);
      testing::ExpectTensor(is_finite(t), kBool, {n}, fin);
    }
  }
  // Large enough for the thread pool.
  std::vector<double> big(300001, 1.0);
  big[123456] = kNaN;
  const std::vector<double> got = testing::ToDoubles(is_nan(MakeTensor(kFloat32, {300001}, big)));
  double count = 0;
  for (double b : got) count += b;
  CHECK(count == 1);
  CHECK(got[123456] == 1);
}

TEST_CASE("CheckNumerics passes finite tensors through") {
  for (DType dtype : kAllFloats) {
    INFO(DTypeName(dtype));
    const Tensor t = MakeTensor(dtype, {2, 2}, {1, -2, 0.5, 256});
    testing::ExpectTensor(check_numerics(t, "fine"), dtype, {2, 2}, {1, -2, 0.5, 256});
  }
  testing::ExpectTensor(check_numerics(zeros({0}), "empty"), kFloat32, {0}, {});
}

TEST_CASE("CheckNumerics reports NaN, Inf or both, with the message") {
  for (DType dtype : kAllFloats) {
    INFO(DTypeName(dtype));
    const Tensor nan = MakeTensor(dtype, {3}, {1, kNaN, 2});
    const Tensor inf = MakeTensor(dtype, {3}, {1, -kInf, 2});
    const Tensor both = MakeTensor(dtype, {4}, {kInf, 1, kNaN, 2});
    testing::ExpectError(
        [&] { check_numerics(nan, "loss is bad"); },
        {"CheckNumerics", "loss is bad : Tensor had NaN values", "float_check_ops_test.cc"});
    testing::ExpectError([&] { check_numerics(inf, "activations"); },
                         {"CheckNumerics", "activations : Tensor had Inf values"});
    testing::ExpectError([&] { check_numerics(both, "m"); },
                         {"CheckNumerics", "m : Tensor had Inf and NaN values"});
  }
}

TEST_CASE("Float classification ops reject non-float dtypes") {
  testing::ExpectError(
      [] {
        is_nan(constant({1, 2}));
      },
      {"IsNan", "dtype int32 is not supported", "x: int32 (2,)"});
  testing::ExpectError([] { is_finite(zeros({2}, kBool)); }, {"IsFinite", "dtype bool"});
  testing::ExpectError(
      [] { check_numerics(constant(int64_t{3}), "m"); },
      {"CheckNumerics", "dtype int64 is not supported", "float_check_ops_test.cc"});
}

}  // namespace
}  // namespace duet
