// MatMul / BatchMatMulV2 through matmul(): values vs NumPy (testdata/gen_expected.py), every
// dtype, transposes, broadcasting batch dims, and shape errors.
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/nn/nn_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::MakeTensor;
using testing::ModPattern;
using testing::RoundTo;

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
    testing::ExpectTensor(matmul(MakeTensor(dt, {2, 3}, a), MakeTensor(dt, {3, 2}, b)), dt, {2, 2},
                          expected);
    testing::ExpectTensor(
        matmul(MakeTensor(dt, {3, 2}, at), MakeTensor(dt, {3, 2}, b), true, false), dt, {2, 2},
        expected);
    testing::ExpectTensor(
        matmul(MakeTensor(dt, {2, 3}, a), MakeTensor(dt, {2, 3}, bt), false, true), dt, {2, 2},
        expected);
    testing::ExpectTensor(
        matmul(MakeTensor(dt, {3, 2}, at), MakeTensor(dt, {2, 3}, bt), true, true), dt, {2, 2},
        expected);
  }
}

TEST_CASE("BatchMatMulV2 broadcasts a batch of one and honours adj_x / adj_y") {
  const std::vector<double> x = ModPattern(24, 7, 11, 5, 4), y = ModPattern(20, 5, 9, 4, 3);
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
    const Tensor xs = MakeTensor(dt, {2, 3, 4}, x), ys = MakeTensor(dt, {1, 4, 5}, y);
    testing::ExpectTensor(matmul(xs, ys), dt, {2, 3, 5}, expected, 1e-6);
    testing::ExpectTensor(matmul(MakeTensor(dt, {2, 4, 3}, xt), ys, true, false), dt, {2, 3, 5},
                          expected, 1e-6);
    testing::ExpectTensor(matmul(xs, MakeTensor(dt, {1, 5, 4}, yt), false, true), dt, {2, 3, 5},
                          expected, 1e-6);
    testing::ExpectTensor(
        matmul(MakeTensor(dt, {2, 4, 3}, xt), MakeTensor(dt, {1, 5, 4}, yt), true, true), dt,
        {2, 3, 5}, expected, 1e-6);
  }
}

TEST_CASE("BatchMatMulV2 broadcasts batch dims of different ranks both ways") {
  // NumPy: x(3,1,1,2) @ swapaxes(y(2,4,2))[None]: batch (3, 1) with (2,) gives (3, 2).
  const std::vector<double> x = ModPattern(6, 7, 11, 5, 4), y = ModPattern(16, 5, 9, 4, 3);
  const std::vector<double> expected = {
      1.83333333,   1.58333333,  1.33333333,  1.08333333,   -0.666666667, -0.916666667,
      -1.16666667,  -1.41666667, 1.08333333,  1.33333333,   1.58333333,   1.83333333,
      -1.66666667,  -1.41666667, -1.16666667, -0.916666667, -0.583333333, -0.75,
      -0.916666667, -1.08333333, 1,           0.833333333,  0.666666667,  0.5};
  for (DType dt : {kFloat32, kFloat64}) {
    INFO("dtype " << DTypeName(dt));
    testing::ExpectTensor(
        matmul(MakeTensor(dt, {3, 1, 1, 2}, x), MakeTensor(dt, {2, 4, 2}, y), false, true), dt,
        {3, 2, 1, 4}, expected, 1e-6);
  }
}

TEST_CASE("bfloat16 matmul agrees with float64 on the same rounded inputs") {
  const std::vector<double> x = RoundTo(kBFloat16, ModPattern(2 * 7 * 9, 7, 11, 5, 3));
  const std::vector<double> y = RoundTo(kBFloat16, ModPattern(9 * 6, 5, 13, 6, 5));
  const Tensor want = matmul(MakeTensor(kFloat64, {2, 7, 9}, x), MakeTensor(kFloat64, {9, 6}, y));
  const Tensor got = matmul(MakeTensor(kBFloat16, {2, 7, 9}, x), MakeTensor(kBFloat16, {9, 6}, y));
  testing::ExpectTensor(got, kBFloat16, {2, 7, 6}, testing::ToDoubles(want), 1e-2);
}

TEST_CASE("float32 and float64 matmul agree on a larger product") {
  const std::vector<double> x = ModPattern(37 * 29, 7, 17, 8, 7),
                            y = ModPattern(29 * 41, 5, 13, 6, 5);
  const Tensor f64 = matmul(MakeTensor(kFloat64, {37, 29}, x), MakeTensor(kFloat64, {29, 41}, y));
  const Tensor f32 = matmul(MakeTensor(kFloat32, {37, 29}, x), MakeTensor(kFloat32, {29, 41}, y));
  testing::ExpectTensor(f32, kFloat32, {37, 41}, testing::ToDoubles(f64), 1e-5);
  // Repeated and interleaved shapes reuse cached oneDNN plans; the results must not change.
  for (int i = 0; i < 3; ++i) {
    testing::ExpectTensorNear(
        matmul(MakeTensor(kFloat32, {37, 29}, x), MakeTensor(kFloat32, {29, 41}, y)), f32, 0);
    matmul(MakeTensor(kFloat32, {29, 37}, x), MakeTensor(kFloat32, {37, 29}, x));
  }
}

TEST_CASE("matmul with an empty inner dimension gives zeros; empty outputs are fine") {
  for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
    testing::ExpectTensor(matmul(MakeTensor(dt, {2, 0}, {}), MakeTensor(dt, {0, 3}, {})), dt,
                          {2, 3}, {0, 0, 0, 0, 0, 0});
    testing::ExpectTensor(
        matmul(MakeTensor(dt, {0, 2, 3}, {}), MakeTensor(dt, {3, 2}, ModPattern(6, 1, 7, 3, 1))),
        dt, {0, 2, 2}, {});
  }
}

TEST_CASE("matmul errors name both shapes and the inner dims") {
  const Tensor a = MakeTensor(kFloat32, {2, 3}, ModPattern(6, 1, 7, 3, 1));
  const Tensor b = MakeTensor(kFloat32, {4, 5}, ModPattern(20, 1, 7, 3, 1));
  testing::ExpectError([&] { matmul(a, b); },
                       {"MatMul", "inner dimensions do not match: 3 vs 4", "(2, 3)", "(4, 5)",
                        "transpose_a=false", "float32", "matmul_test.cc"});
  testing::ExpectError([&] { matmul(a, b, true, false); },
                       {"MatMul", "2 vs 4", "transpose_a=true"});
  const Tensor x = MakeTensor(kFloat32, {2, 3, 4}, ModPattern(24, 1, 7, 3, 1));
  const Tensor y = MakeTensor(kFloat32, {3, 4, 5}, ModPattern(60, 1, 7, 3, 1));
  testing::ExpectError(
      [&] { matmul(x, x); },
      {"BatchMatMulV2", "inner dimensions do not match: 4 vs 3", "(2, 3, 4)", "adj_x=false"});
  testing::ExpectError([&] { matmul(x, y); },
                       {"BatchMatMulV2", "batch dimensions (2,) and (3,) do not broadcast",
                        "(2, 3, 4)", "(3, 4, 5)"});
  testing::ExpectError(
      [&] {
        matmul(x, MakeTensor(kFloat32, {4}, {1, 2, 3, 4}));
      },
      {"BatchMatMulV2", "rank >= 2", "(4,)"});
}

TEST_CASE("matmul rejects mixed and unsupported dtypes") {
  testing::ExpectError(
      [&] {
        matmul(MakeTensor(kFloat32, {2, 2}, {1, 2, 3, 4}),
               MakeTensor(kFloat64, {2, 2}, {1, 2, 3, 4}));
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
