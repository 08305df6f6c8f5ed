// ArgMax and ArgMin: every dtype against NumPy, ties, NaN, both output types, large inputs,
// error messages.
#include <catch2/catch.hpp>
#include <cmath>

#include "core/constant.h"
#include "ops/reduction/reduction_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

// x = ((np.arange(24) * 7) % 11 - 5).reshape(2, 3, 4)
const std::vector<int> kX = {-5, 2,  -2, 5, 1,  -3, 4, 0,  -4, 3,  -1, -5,
                             2,  -2, 5,  1, -3, 4,  0, -4, 3,  -1, -5, 2};

TEMPLATE_TEST_CASE("ArgMax and ArgMin match NumPy along every axis", "", float, double, int32_t,
                   int64_t) {
  Tensor x = from_vector(std::vector<TestType>(kX.begin(), kX.end()), {2, 3, 4});
  // x.argmax(axis), x.argmin(axis)
  testing::ExpectTensor(argmax(x, 0), kInt64, {3, 4}, {1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1});
  testing::ExpectTensor(argmin(x, 0), kInt64, {3, 4}, {0, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0});
  testing::ExpectTensor(argmax(x, 1), kInt64, {2, 4}, {1, 2, 1, 0, 2, 1, 0, 2});
  testing::ExpectTensor(argmin(x, -2), kInt64, {2, 4}, {0, 1, 0, 2, 1, 0, 2, 1});
  testing::ExpectTensor(argmax(x, 2, kInt32), kInt32, {2, 3}, {3, 2, 1, 2, 1, 0});
  testing::ExpectTensor(argmin(x, -1, kInt32), kInt32, {2, 3}, {0, 1, 3, 1, 3, 2});
}

TEST_CASE("ArgMax and ArgMin return the first of tied values") {
  Tensor t = constant({{3, 1, 3, 0}, {2, 2, -1, -1}});
  testing::ExpectTensor(argmax(t, 1), kInt64, {2}, {0, 0});
  testing::ExpectTensor(argmin(t, 1), kInt64, {2}, {3, 2});
  testing::ExpectTensor(argmax(t, 0), kInt64, {4}, {0, 1, 0, 0});
  testing::ExpectTensor(argmin(t, 0), kInt64, {4}, {1, 0, 1, 1});
  testing::ExpectTensor(argmax(constant({7.0}), 0), kInt64, {}, {0});
}

TEST_CASE("ArgMax and ArgMin return the first NaN like NumPy") {
  const float nan = NAN;
  Tensor n = constant({{1.f, nan, 3.f, nan}, {5.f, 4.f, nan, 0.f}});
  testing::ExpectTensor(argmax(n, 1), kInt64, {2}, {1, 2});
  testing::ExpectTensor(argmin(n, 1), kInt64, {2}, {1, 2});
  testing::ExpectTensor(argmax(n, 0), kInt64, {4}, {1, 0, 1, 0});
  testing::ExpectTensor(argmin(n, 0), kInt64, {4}, {0, 0, 1, 0});
}

TEST_CASE("ArgMax of large inputs along rows and columns") {
  // Row r has its maximum at column (r * 31) % 5000; column c at row (c * 17) % 5000.
  std::vector<float> v(300 * 5000, 0.f);
  for (int64_t r = 0; r < 300; ++r) v[r * 5000 + (r * 31) % 5000] = 1.f + r;
  std::vector<int64_t> rows = argmax(from_vector(v, {300, 5000}), 1).to_vector<int64_t>();
  int64_t mismatches = 0;
  for (int64_t r = 0; r < 300; ++r) mismatches += rows[r] != (r * 31) % 5000;
  std::vector<double> w(5000 * 300, 0.0);
  for (int64_t c = 0; c < 300; ++c) w[((c * 17) % 5000) * 300 + c] = -1.0 - c;
  std::vector<int32_t> cols = argmin(from_vector(w, {5000, 300}), 0, kInt32).to_vector<int32_t>();
  for (int64_t c = 0; c < 300; ++c) mismatches += cols[c] != (c * 17) % 5000;
  CHECK(mismatches == 0);
}

TEST_CASE("ArgMax and ArgMin report bad axes, empty axes and dtypes") {
  Tensor x = zeros({2, 3, 4});
  testing::ExpectError([&] { argmax(x, 3); },
                       {"ArgMax", "axis 3 is out of range for a tensor of rank 3",
                        "input: float32 (2, 3, 4)", "arg_reduction_ops_test.cc"});
  testing::ExpectError([&] { argmin(x, -4); },
                       {"ArgMin", "axis -4 is out of range for a tensor of rank 3"});
  testing::ExpectError(
      [&] {
        argmax(zeros({0, 3}), 0);
      },
      {"ArgMax", "axis 0 of shape (0, 3) is empty: there is no index to return"});
  testing::ExpectError([&] { argmax(constant(1.f), 0); },
                       {"ArgMax", "axis 0 is out of range for a tensor of rank 0"});
  testing::ExpectError([&] { argmax(x, 0, kFloat32); },
                       {"ArgMax", "dtype float32 is not supported", "output_type"});
  testing::ExpectError([&] { argmax(zeros({2}, kBool), 0); },
                       {"ArgMax", "dtype bool is not supported"});
  testing::ExpectTensor(argmax(zeros({3, 0}), 0), kInt64, {0}, {});
}

}  // namespace
}  // namespace duet
