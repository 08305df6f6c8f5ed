// MatMul / BatchMatMulV2 through matmul(): values vs NumPy (testdata/gen_expected.py), every
// dtype, transposes, broadcasting batch dims, and shape errors.
#include <catch2/catch.hpp>

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

// `values` as `dtype` would store them, read back as doubles.
std::vector<double> RoundTo(const std::vector<double>& values, DType dtype) {
  return testing::ToDoubles(Make(values, Shape{static_cast<int64_t>(values.size())}, dtype));
}

// x stored transposed in its last two dims.
std::vector<double> TransposeLast2(const std::vector<double>& v, int64_t batch, int64_t rows,
                                   int64_t cols) {
  std::vector<double> t(v.size());
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c)
        t[(b * cols + c) * rows + r] = v[(b * rows + r) * cols + c];
    }
  }
  return t;
}

TEST_CASE("MatMul multiplies 2-D matrices with every transpose combination") {
  const std::vector<double> a = {1, 2, 3, 4, 5, 6}, b = {7, 8, 9, 10, 11, 12};
  const std::vector<double> at = TransposeLast2(a, 1, 2, 3), bt = TransposeLast2(b, 1, 3, 2);
  for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
    INFO("dtype " << DTypeName(dt));
    const std::vector<double> expected = {58, 64, 139, 154};  // exact in every dtype
    testing::ExpectTensor(matmul(Make(a, {2, 3}, dt), Make(b, {3, 2}, dt)), dt, {2, 2}, expected);
    testing::ExpectTensor(matmul(Make(at, {3, 2}, dt), Make(b, {3, 2}, dt), true, false), dt,
                          {2, 2}, expected);
    testing::ExpectTensor(matmul(Make(a, {2, 3}, dt), Make(bt, {2, 3}, dt), false, true), dt,
                          {2, 2}, expected);
    testing::ExpectTensor(matmul(Make(at, {3, 2}, dt), Make(bt, {2, 3}, dt), true, true), dt,
                          {2, 2}, expected);
  }
}

TEST_CASE("BatchMatMulV2 broadcasts a batch of one and honours adj_x / adj_y") {
  const std::vector<double> x = Pattern(24, 7, 11, 5, 4), y = Pattern(20, 5, 9, 4, 3);
  const std::vector<double> xt = TransposeLast2(x, 2, 3, 4), yt = TransposeLast2(y, 1, 4, 5);
  // NumPy: x(2,3,4) @ y(1,4,5).
  const std::vector<double> expected = {
      1.58333333,   1.58333333,   1.58333333, -2.16666667,  0.0833333333, -0.75,
      -0.666666667, -0.583333333, -0.5,       1.83333333,   2.41666667,   -2,
      1.83333333,   1.16666667,   -1,         -0.833333333, -0.583333333, -0.333333333,
      -0.833333333, 1.66666667,   2.33333333, -1.91666667,  2.08333333,   0.833333333,
      -1.16666667,  -1.83333333,  2.25,       -1.91666667,  0.666666667,  -1.25};
  for (DType dt : {kFloat32, kFloat64}) {
    INFO("dtype " << DTypeName(dt));
    const Tensor xs = Make(x, {2, 3, 4}, dt), ys = Make(y, {1, 4, 5}, dt);
    testing::ExpectTensor(matmul(xs, ys), dt, {2, 3, 5}, expected, 1e-6);
    testing::ExpectTensor(matmul(Make(xt, {2, 4, 3}, dt), ys, true, false), dt, {2, 3, 5}, expected,
                          1e-6);
    testing::ExpectTensor(matmul(xs, Make(yt, {1, 5, 4}, dt), false, true), dt, {2, 3, 5}, expected,
                          1e-6);
    testing::ExpectTensor(matmul(Make(xt, {2, 4, 3}, dt), Make(yt, {1, 5, 4}, dt), true, true), dt,
                          {2, 3, 5}, expected, 1e-6);
  }
}

TEST_CASE("BatchMatMulV2 broadcasts batch dims of different ranks both ways") {
  // NumPy: x(3,1,1,2) @ swapaxes(y(2,4,2))[None]: batch (3, 1) with (2,) gives (3, 2).
  const std::vector<double> x = Pattern(6, 7, 11, 5, 4), y = Pattern(16, 5, 9, 4, 3);
  const std::vector<double> expected = {
      1.83333333,   1.58333333,  1.33333333,  1.08333333,   -0.666666667, -0.916666667,
      -1.16666667,  -1.41666667, 1.08333333,  1.33333333,   1.58333333,   1.83333333,
      -1.66666667,  -1.41666667, -1.16666667, -0.916666667, -0.583333333, -0.75,
      -0.916666667, -1.08333333, 1,           0.833333333,  0.666666667,  0.5};
  for (DType dt : {kFloat32, kFloat64}) {
    INFO("dtype " << DTypeName(dt));
    testing::ExpectTensor(matmul(Make(x, {3, 1, 1, 2}, dt), Make(y, {2, 4, 2}, dt), false, true),
                          dt, {3, 2, 1, 4}, expected, 1e-6);
  }
}

TEST_CASE("bfloat16 matmul agrees with float64 on the same rounded inputs") {
  const std::vector<double> x = RoundTo(Pattern(2 * 7 * 9, 7, 11, 5, 3), kBFloat16);
  const std::vector<double> y = RoundTo(Pattern(9 * 6, 5, 13, 6, 5), kBFloat16);
  const Tensor want = matmul(Make(x, {2, 7, 9}, kFloat64), Make(y, {9, 6}, kFloat64));
  const Tensor got = matmul(Make(x, {2, 7, 9}, kBFloat16), Make(y, {9, 6}, kBFloat16));
  testing::ExpectTensor(got, kBFloat16, {2, 7, 6}, testing::ToDoubles(want), 1e-2);
}

TEST_CASE("float32 and float64 matmul agree on a larger product") {
  const std::vector<double> x = Pattern(37 * 29, 7, 17, 8, 7), y = Pattern(29 * 41, 5, 13, 6, 5);
  const Tensor f64 = matmul(Make(x, {37, 29}, kFloat64), Make(y, {29, 41}, kFloat64));
  const Tensor f32 = matmul(Make(x, {37, 29}, kFloat32), Make(y, {29, 41}, kFloat32));
  testing::ExpectTensor(f32, kFloat32, {37, 41}, testing::ToDoubles(f64), 1e-5);
  // Repeated and interleaved shapes reuse cached oneDNN plans; the results must not change.
  for (int i = 0; i < 3; ++i) {
    testing::ExpectTensorNear(matmul(Make(x, {37, 29}, kFloat32), Make(y, {29, 41}, kFloat32)), f32,
                              0);
    matmul(Make(x, {29, 37}, kFloat32), Make(x, {37, 29}, kFloat32));
  }
}

TEST_CASE("matmul with an empty inner dimension gives zeros; empty outputs are fine") {
  for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
    testing::ExpectTensor(matmul(Make({}, {2, 0}, dt), Make({}, {0, 3}, dt)), dt, {2, 3},
                          {0, 0, 0, 0, 0, 0});
    testing::ExpectTensor(matmul(Make({}, {0, 2, 3}, dt), Make(Pattern(6, 1, 7, 3, 1), {3, 2}, dt)),
                          dt, {0, 2, 2}, {});
  }
}

TEST_CASE("matmul errors name both shapes and the inner dims") {
  const Tensor a = Make(Pattern(6, 1, 7, 3, 1), {2, 3}, kFloat32);
  const Tensor b = Make(Pattern(20, 1, 7, 3, 1), {4, 5}, kFloat32);
  testing::ExpectError([&] { matmul(a, b); },
                       {"MatMul", "inner dimensions do not match: 3 vs 4", "(2, 3)", "(4, 5)",
                        "transpose_a=false", "float32", "matmul_test.cc"});
  testing::ExpectError([&] { matmul(a, b, true, false); },
                       {"MatMul", "2 vs 4", "transpose_a=true"});
  const Tensor x = Make(Pattern(24, 1, 7, 3, 1), {2, 3, 4}, kFloat32);
  const Tensor y = Make(Pattern(60, 1, 7, 3, 1), {3, 4, 5}, kFloat32);
  testing::ExpectError(
      [&] { matmul(x, x); },
      {"BatchMatMulV2", "inner dimensions do not match: 4 vs 3", "(2, 3, 4)", "adj_x=false"});
  testing::ExpectError([&] { matmul(x, y); },
                       {"BatchMatMulV2", "batch dimensions (2,) and (3,) do not broadcast",
                        "(2, 3, 4)", "(3, 4, 5)"});
  testing::ExpectError(
      [&] {
        matmul(x, Make({1, 2, 3, 4}, {4}, kFloat32));
      },
      {"BatchMatMulV2", "rank >= 2", "(4,)"});
}

TEST_CASE("matmul rejects mixed and unsupported dtypes") {
  testing::ExpectError(
      [&] {
        matmul(Make({1, 2, 3, 4}, {2, 2}, kFloat32), Make({1, 2, 3, 4}, {2, 2}, kFloat64));
      },
      {"MatMul", "float64", "float32"});
  testing::ExpectError(
      [&] {
        matmul(constant({{1, 2}, {3, 4}}), constant({{1, 2}, {3, 4}}));
      },
      {"MatMul", "dtype int32 is not supported"});
}

}  // namespace
}  // namespace duet
