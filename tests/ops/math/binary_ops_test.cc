// Binary arithmetic ops: values (NumPy-computed), every dtype, broadcasting fast paths and the
// general strided path, the threaded path against a reference loop, and error messages.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>

#include "core/constant.h"
#include "ops/math/math_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::MakeTensor;

// 0, 1, 2, ... as float64 values, shifted and scaled to make them less regular.
std::vector<double> Ramp(int64_t n, double scale, double offset) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::fmod(i * scale, 97.0) + offset;
  return v;
}

using BinaryFn = Tensor (*)(const Tensor&, const Tensor&, OpSite);

const std::vector<DType> kArithmetic = {kFloat32, kFloat64, kInt32, kInt64};
const std::vector<DType> kFloats = {kFloat32, kFloat64};

TEST_CASE("add, subtract, multiply, maximum, minimum on every arithmetic dtype") {
  const std::vector<double> x = {-3, -1, 0, 2, 5, 7};
  const std::vector<double> y = {2, -4, 3, 2, -6, 7};
  const std::vector<std::pair<BinaryFn, std::vector<double>>> cases = {
      {add, {-1, -5, 3, 4, -1, 14}},      {subtract, {-5, 3, -3, 0, 11, 0}},
      {multiply, {-6, 4, 0, 4, -30, 49}}, {maximum, {2, -1, 3, 2, 5, 7}},
      {minimum, {-3, -4, 0, 2, -6, 7}},
  };
  for (DType dtype : kArithmetic) {
    INFO(DTypeName(dtype));
    for (const auto& [fn, expected] : cases) {
      testing::ExpectTensor(fn(MakeTensor(dtype, {2, 3}, x), MakeTensor(dtype, {2, 3}, y), {}),
                            dtype, {2, 3}, expected);
    }
  }
}

TEST_CASE("floating-point arithmetic matches NumPy") {
  const std::vector<double> x = {-2.5, -1, 0, 1.5, 3, 4.25, -7, 8};
  const std::vector<double> y = {1, -2, 3, 0.5, -1.5, 2, 2.5, -3};
  const std::vector<std::pair<BinaryFn, std::vector<double>>> cases = {
      {add, {-1.5, -3.0, 3.0, 2.0, 1.5, 6.25, -4.5, 5.0}},
      {subtract, {-3.5, 1.0, -3.0, 1.0, 4.5, 2.25, -9.5, 11.0}},
      {multiply, {-2.5, 2.0, 0.0, 0.75, -4.5, 8.5, -17.5, -24.0}},
      {divide, {-2.5, 0.5, 0.0, 3.0, -2.0, 2.125, -2.8, -2.6666666666666665}},
      {floor_mod, {0.5, -1.0, 0.0, 0.0, 0.0, 0.25, 0.5, -1.0}},
      {maximum, {1.0, -1.0, 3.0, 1.5, 3.0, 4.25, 2.5, 8.0}},
      {minimum, {-2.5, -2.0, 0.0, 0.5, -1.5, 2.0, -7.0, -3.0}},
  };
  for (DType dtype : kFloats) {
    INFO(DTypeName(dtype));
    for (const auto& [fn, expected] : cases) {
      testing::ExpectTensor(fn(MakeTensor(dtype, {2, 4}, x), MakeTensor(dtype, {2, 4}, y), {}),
                            dtype, {2, 4}, expected, 1e-6);
    }
  }
}

TEST_CASE("pow on floats and integers") {
  for (DType dtype : kFloats) {
    testing::ExpectTensor(pow(MakeTensor(dtype, {6}, {2, -3, 4, 0.5, 9, 0}),
                              MakeTensor(dtype, {6}, {3, 2, 0.5, -1, 0.5, 0})),
                          dtype, {6}, {8, 9, 2, 2, 3, 1}, 1e-6);
  }
  for (DType dtype : {kInt32, kInt64}) {
    testing::ExpectTensor(pow(MakeTensor(dtype, {6}, {2, -3, 0, 5, -1, 7}),
                              MakeTensor(dtype, {6}, {10, 3, 0, 1, 7, 2})),
                          dtype, {6}, {1024, -27, 1, 5, -1, 49});
  }
  // Non-integer power of a negative base is NaN, as in NumPy.
  testing::ExpectTensor(pow(constant(-8.0), constant(1.0 / 3)), kFloat64, {}, {std::nan("")});
}

TEST_CASE("integer divide truncates toward zero and floor_mod takes the divisor's sign") {
  const std::vector<double> x = {7, -7, 7, -7, 0, 5, 9, -9};
  const std::vector<double> y = {2, 2, -2, -2, 3, -1, 3, 4};
  for (DType dtype : {kInt32, kInt64}) {
    INFO(DTypeName(dtype));
    testing::ExpectTensor(divide(MakeTensor(dtype, {8}, x), MakeTensor(dtype, {8}, y)), dtype, {8},
                          {3, -3, -3, 3, 0, -5, 3, -2});
    testing::ExpectTensor(floor_mod(MakeTensor(dtype, {8}, x), MakeTensor(dtype, {8}, y)), dtype,
                          {8}, {1, 1, -1, -1, 0, 0, 0, 3});
  }
}

TEST_CASE("floor_div rounds down, truncate_div toward zero, on every arithmetic dtype") {
  const std::vector<double> x = {7, -7, 7, -7, 0, -8};
  const std::vector<double> y = {2, 2, -2, -2, 3, 3};
  for (DType dtype : {kInt32, kInt64, kFloat32, kFloat64, kFloat16, kBFloat16}) {
    INFO(DTypeName(dtype));
    testing::ExpectTensor(floor_div(MakeTensor(dtype, {6}, x), MakeTensor(dtype, {6}, y)), dtype,
                          {6}, {3, -4, -4, 3, 0, -3});
    testing::ExpectTensor(truncate_div(MakeTensor(dtype, {6}, x), MakeTensor(dtype, {6}, y)), dtype,
                          {6}, {3, -3, -3, 3, 0, -2});
  }
  // Values from tf.math.floordiv on float32.
  testing::ExpectTensor(floor_div(constant({7.5f, -7.5f, 7.5f, -7.5f}), constant(2.f)), kFloat32,
                        {4}, {3, -4, 3, -4});
  const int32_t min32 = std::numeric_limits<int32_t>::min();
  CHECK(floor_div(constant(min32), constant(-1)).item<int32_t>() == min32);
  CHECK(truncate_div(constant(min32), constant(-1)).item<int32_t>() == min32);
  for (DType dtype : {kInt32, kInt64}) {
    const Tensor zero = MakeTensor(dtype, {2}, {1, 0});
    testing::ExpectError(
        [&] {
          floor_div(MakeTensor(dtype, {2}, {4, 5}), zero);
        },
        {"FloorDiv", "integer division by zero", "flat index 1"});
    testing::ExpectError(
        [&] {
          truncate_div(MakeTensor(dtype, {2}, {4, 5}), zero);
        },
        {"TruncateDiv", "integer division by zero"});
  }
}

// Issue 37: float FloorDiv is TensorFlow's floor(x / y) of the rounded quotient, not Python's
// exact floor: -1e-3 // inf is -0.0 (Python gives -1.0), and float32 0.3 // 0.1 is 3 (Python,
// on the same float32 values: 2.0). Values from tf.raw_ops.FloorDiv in TensorFlow 2.21.
TEST_CASE("float floor_div is floor(x / y), as TensorFlow") {
  for (DType dtype : {kFloat32, kFloat64}) {
    INFO(DTypeName(dtype));
    const Tensor q = floor_div(MakeTensor(dtype, {4}, {-1e-3, 1e-3, 5, -5}),
                               MakeTensor(dtype, {4}, {INFINITY, INFINITY, -0.0, 0}));
    testing::ExpectTensor(q, dtype, {4}, {0, 0, -INFINITY, -INFINITY});
    CHECK(std::signbit(testing::ToDoubles(q)[0]));
  }
  testing::ExpectTensor(floor_div(constant(0.3f), constant(0.1f)), kFloat32, {}, {3});
}

TEST_CASE("squared_difference and atan2 match TensorFlow and NumPy") {
  for (DType dtype : {kInt32, kInt64, kFloat32, kFloat64}) {
    INFO(DTypeName(dtype));
    testing::ExpectTensor(squared_difference(MakeTensor(dtype, {2, 2}, {7, -7, 1, 0}),
                                             MakeTensor(dtype, {2}, {2, -2})),
                          dtype, {2, 2}, {25, 25, 1, 4});
  }
  const double pi = 3.141592653589793;
  for (DType dtype : {kFloat32, kFloat64}) {
    INFO(DTypeName(dtype));
    const double tol = dtype == kFloat32 ? 1e-6 : 1e-15;
    testing::ExpectTensor(atan2(MakeTensor(dtype, {6}, {1, 1, -1, -1, 0, 0}),
                                MakeTensor(dtype, {6}, {1, -1, 1, -1, 1, -1})),
                          dtype, {6}, {pi / 4, 3 * pi / 4, -pi / 4, -3 * pi / 4, 0, pi}, tol);
  }
  testing::ExpectError(
      [] {
        atan2(constant({1, 2}), constant({1, 2}));
      },
      {"Atan2", "dtype int32 is not supported"});
}

TEST_CASE("the most negative integer divided by -1 wraps instead of trapping") {
  const int32_t min32 = std::numeric_limits<int32_t>::min();
  const int64_t min64 = std::numeric_limits<int64_t>::min();
  CHECK(divide(constant(min32), constant(-1)).item<int32_t>() == min32);
  CHECK(floor_mod(constant(min32), constant(-1)).item<int32_t>() == 0);
  CHECK(divide(constant(min64), constant(int64_t{-1})).item<int64_t>() == min64);
  CHECK(floor_mod(constant(min64), constant(int64_t{-1})).item<int64_t>() == 0);
  // Integer overflow wraps like TensorFlow (two's complement) rather than being undefined.
  const int32_t max32 = std::numeric_limits<int32_t>::max();
  CHECK(add(constant(max32), constant(1)).item<int32_t>() == min32);
  CHECK(multiply(constant(max32), constant(2)).item<int32_t>() == -2);
}

TEST_CASE("float division by zero gives inf and NaN, not an error") {
  testing::ExpectTensor(divide(constant({1.f, -1.f, 0.f}), constant(0.f)), kFloat32, {3},
                        {INFINITY, -INFINITY, std::nan("")});
  testing::ExpectTensor(floor_mod(constant({1.0}), constant(0.0)), kFloat64, {1}, {std::nan("")});
}

TEST_CASE("maximum and minimum propagate NaN") {
  const float nan = std::nanf("");
  testing::ExpectTensor(maximum(constant({nan, 1.f, 2.f}), constant({1.f, nan, 1.f})), kFloat32,
                        {3}, {std::nan(""), std::nan(""), 2});
  testing::ExpectTensor(minimum(constant({nan, 1.f, 2.f}), constant({1.f, nan, 1.f})), kFloat32,
                        {3}, {std::nan(""), std::nan(""), 1});
}

TEST_CASE("broadcasting: scalar, row vector, column vector, outer product") {
  Tensor a = constant({{0.f, 1.f, 2.f}, {3.f, 4.f, 5.f}});
  Tensor row = constant({10.f, 20.f, 30.f});
  Tensor col = constant({{100.f}, {200.f}});
  testing::ExpectTensor(add(a, constant(1.f)), kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  testing::ExpectTensor(subtract(constant(1.f), a), kFloat32, {2, 3}, {1, 0, -1, -2, -3, -4});
  testing::ExpectTensor(add(a, row), kFloat32, {2, 3}, {10, 21, 32, 13, 24, 35});
  testing::ExpectTensor(add(row, a), kFloat32, {2, 3}, {10, 21, 32, 13, 24, 35});
  testing::ExpectTensor(subtract(a, col), kFloat32, {2, 3}, {-100, -99, -98, -197, -196, -195});
  testing::ExpectTensor(subtract(col, a), kFloat32, {2, 3}, {100, 99, 98, 197, 196, 195});
  testing::ExpectTensor(multiply(col, row), kFloat32, {2, 3}, {1000, 2000, 3000, 2000, 4000, 6000});
  // Same element count, different rank: (1, 3) with (3,) is the same-shape fast path.
  testing::ExpectTensor(add(constant({{1.f, 2.f, 3.f}}), row), kFloat32, {1, 3}, {11, 22, 33});
  // A 0-d scalar with a 1-element rank-2 tensor keeps the higher rank.
  testing::ExpectTensor(add(constant(1.f), constant({{2.f}})), kFloat32, {1, 1}, {3});
}

TEST_CASE("broadcasting: general rank-3 cases, every arithmetic dtype") {
  std::vector<double> a(24);
  for (int i = 0; i < 24; ++i) a[i] = i;
  for (DType dtype : kArithmetic) {
    INFO(DTypeName(dtype));
    Tensor a3 = MakeTensor(dtype, {2, 3, 4}, a);
    testing::ExpectTensor(multiply(a3, MakeTensor(dtype, {3, 1}, {1, 2, 3})), dtype, {2, 3, 4},
                          {0,  1,  2,  3,  8,  10, 12, 14, 24, 27, 30, 33,
                           12, 13, 14, 15, 32, 34, 36, 38, 60, 63, 66, 69});
    testing::ExpectTensor(
        subtract(a3, MakeTensor(dtype, {2, 1, 4}, {0, 1, 2, 3, 4, 5, 6, 7})), dtype, {2, 3, 4},
        {0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 8, 8, 8, 8, 12, 12, 12, 12, 16, 16, 16, 16});
  }
  // (2, 1, 3) + (1, 2, 1): both operands broadcast, along different dims.
  testing::ExpectTensor(
      add(constant({{{1.0, 2.0, 3.0}}, {{4.0, 5.0, 6.0}}}), constant({{{10.0}, {20.0}}})), kFloat64,
      {2, 2, 3}, {11, 12, 13, 21, 22, 23, 14, 15, 16, 24, 25, 26});
}

TEST_CASE("empty tensors broadcast to empty results") {
  Tensor empty = MakeTensor(kFloat32, {0, 3}, {});
  testing::ExpectTensor(add(empty, constant({1.f, 2.f, 3.f})), kFloat32, {0, 3}, {});
  testing::ExpectTensor(divide(MakeTensor(kInt32, {0}, {}), constant(0)), kInt32, {0}, {});
}

// Reference for one large broadcasting case: out[i, j] = f(x[i or 0, j or 0], y[...]).
void CheckLargeBroadcast(const Shape& xs, const Shape& ys, BinaryFn fn,
                         const std::function<double(double, double)>& ref) {
  const Shape out{xs[0] > ys[0] ? xs[0] : ys[0], xs[1] > ys[1] ? xs[1] : ys[1]};
  const std::vector<double> xv = Ramp(xs.num_elements(), 1.25, -40);
  const std::vector<double> yv = Ramp(ys.num_elements(), 0.75, 1);
  std::vector<double> expected(out.num_elements());
  for (int64_t i = 0; i < out[0]; ++i) {
    for (int64_t j = 0; j < out[1]; ++j) {
      const double xe = xv[(xs[0] == 1 ? 0 : i) * xs[1] + (xs[1] == 1 ? 0 : j)];
      const double ye = yv[(ys[0] == 1 ? 0 : i) * ys[1] + (ys[1] == 1 ? 0 : j)];
      expected[i * out[1] + j] = ref(xe, ye);
    }
  }
  testing::ExpectTensor(fn(MakeTensor(kFloat64, xs, xv), MakeTensor(kFloat64, ys, yv), {}),
                        kFloat64, out, expected, 1e-12);
}

TEST_CASE("large inputs take the threaded path and match a reference loop") {
  auto sub = [](double a, double b) { return a - b; };
  auto mul = [](double a, double b) { return a * b; };
  CheckLargeBroadcast({300, 200}, {300, 200}, subtract, sub);
  CheckLargeBroadcast({300, 200}, {1, 1}, subtract, sub);
  CheckLargeBroadcast({1, 1}, {300, 200}, subtract, sub);
  CheckLargeBroadcast({300, 200}, {1, 200}, multiply, mul);  // row vector
  CheckLargeBroadcast({300, 200}, {300, 1}, multiply, mul);  // column vector
  CheckLargeBroadcast({1, 200}, {300, 200}, subtract, sub);
  CheckLargeBroadcast({300, 1}, {1, 200}, subtract, sub);  // outer
  CheckLargeBroadcast({70001, 1}, {1, 3}, subtract, sub);  // many short rows
  CheckLargeBroadcast({300, 200}, {300, 200}, floor_mod, [](double a, double b) {
    const double r = std::fmod(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
  });
}

TEST_CASE("large rank-3 integer broadcast matches a reference loop") {
  const int64_t d0 = 40, d1 = 30, d2 = 50;
  std::vector<double> xv(d0 * d1 * d2), yv(d0 * d2), expected(d0 * d1 * d2);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<double>(i % 1000) - 500;
  for (size_t i = 0; i < yv.size(); ++i) yv[i] = static_cast<double>(i % 17) + 1;
  for (int64_t i = 0; i < d0; ++i) {
    for (int64_t j = 0; j < d1; ++j) {
      for (int64_t k = 0; k < d2; ++k) {
        const double a = xv[(i * d1 + j) * d2 + k], b = yv[i * d2 + k];
        expected[(i * d1 + j) * d2 + k] = std::trunc(a / b);
      }
    }
  }
  testing::ExpectTensor(
      divide(MakeTensor(kInt64, {d0, d1, d2}, xv), MakeTensor(kInt64, {d0, 1, d2}, yv)), kInt64,
      {d0, d1, d2}, expected);
}

TEST_CASE("incompatible shapes name the op, the shapes, the dtypes and the caller's file") {
  testing::ExpectError(
      [] {
        add(constant({{1.f, 2.f, 3.f}}), constant({1.f, 2.f}));
      },
      {"AddV2", "incompatible shapes", "(1, 3)", "(2,)", "float32", "binary_ops_test.cc"});
  testing::ExpectError(
      [] {
        multiply(MakeTensor(kInt32, {2, 3, 4}, std::vector<double>(24)),
                 MakeTensor(kInt32, {3, 3}, std::vector<double>(9)));
      },
      {"Mul", "incompatible shapes", "(2, 3, 4)", "(3, 3)", "int32"});
}

TEST_CASE("relu_grad passes the gradient where the features are positive") {
  const std::vector<double> g = {1, 2, 3, 4, 5, 6};
  const std::vector<double> f = {-3, 0, 2, 1, -1, 7};
  for (DType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64}) {
    INFO(DTypeName(dtype));
    testing::ExpectTensor(relu_grad(MakeTensor(dtype, {2, 3}, g), MakeTensor(dtype, {2, 3}, f)),
                          dtype, {2, 3}, {0, 0, 3, 4, 0, 6});
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();  // NaN > 0 is false
  testing::ExpectTensor(relu_grad(constant({1.0, 1.0}), constant({nan, 2.0})), kFloat64, {2},
                        {0, 1});
  // Equal shapes only: ReluGrad does not broadcast (as in TensorFlow).
  testing::ExpectError(
      [] {
        relu_grad(constant({{1.f, 2.f}}), constant({1.f, 2.f}));
      },
      {"ReluGrad", "(1, 2)", "(2,)", "same shape", "binary_ops_test.cc"});
}

TEST_CASE("mixed dtypes are an error that suggests a cast") {
  testing::ExpectError([] { add(constant(1.f), constant(1.0)); },
                       {"AddV2", "float64", "float32", "cast"});
  testing::ExpectError([] { divide(constant(1), constant(1.f)); }, {"Div", "int32", "float32"});
}

TEST_CASE("unsupported dtypes are a clear error") {
  Tensor b = constant({true, false});
  testing::ExpectError([&] { add(b, b); }, {"AddV2", "dtype bool is not supported"});
  testing::ExpectError([&] { divide(b, b); }, {"RealDiv", "dtype bool is not supported"});
  testing::ExpectError([&] { floor_mod(b, b); }, {"FloorMod", "dtype bool is not supported"});
}

TEST_CASE("integer division or modulo by zero is an error, not a crash") {
  for (DType dtype : {kInt32, kInt64}) {
    Tensor x = MakeTensor(dtype, {2, 2}, {1, 2, 3, 4});
    Tensor y = MakeTensor(dtype, {2}, {1, 0});
    testing::ExpectError([&] { divide(x, y); }, {"Div", "integer division by zero", "flat index 1",
                                                 std::string(DTypeName(dtype))});
    testing::ExpectError([&] { floor_mod(x, y); }, {"FloorMod", "integer division by zero"});
  }
  testing::ExpectError(
      [] {
        pow(constant({2, 3}), constant({1, -2}));
      },
      {"Pow", "negative integer powers", "-2"});
}

}  // namespace
}  // namespace duet
