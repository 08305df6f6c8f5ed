// where (SelectV2): every dtype, three-way broadcasting, the scalar-condition copy, the threaded
// path, and error messages.
#include <catch2/catch.hpp>
#include <cstdint>

#include "core/constant.h"
#include "ops/math/math_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::MakeTensor;

TEST_CASE("where picks from x or y on every dtype") {
  Tensor cond = constant({{true, false, true}, {false, false, true}});
  for (DType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64}) {
    INFO(DTypeName(dtype));
    Tensor x = MakeTensor(dtype, {2, 3}, {1, 2, 3, 4, 5, 6});
    Tensor y = MakeTensor(dtype, {2, 3}, {-1, -2, -3, -4, -5, -6});
    testing::ExpectTensor(where(cond, x, y), dtype, {2, 3}, {1, -2, 3, -4, -5, 6});
  }
  testing::ExpectTensor(
      where(constant({true, false}), constant({true, true}), constant({false, false})), kBool, {2},
      {1, 0});
}

TEST_CASE("where broadcasts condition, x and y together") {
  Tensor m = constant({{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});
  // Scalar x and y, full condition.
  testing::ExpectTensor(where(greater(m, constant(3.f)), constant(1.f), constant(0.f)), kFloat32,
                        {2, 3}, {0, 0, 0, 1, 1, 1});
  // Row condition, column x, scalar y: output (2, 3).
  testing::ExpectTensor(
      where(constant({true, false, true}), constant({{10.f}, {20.f}}), constant(-1.f)), kFloat32,
      {2, 3}, {10, -1, 10, 20, -1, 20});
  // Column condition over a full x and a row y.
  testing::ExpectTensor(where(constant({{true}, {false}}), m, constant({7.f, 8.f, 9.f})), kFloat32,
                        {2, 3}, {1, 2, 3, 7, 8, 9});
  // Rank 3 from three different ranks: (2,1,1), (3,1), (2,).
  testing::ExpectTensor(
      where(constant({{{true}}, {{false}}}), constant({{1}, {2}, {3}}), constant({-1, -2})), kInt32,
      {2, 3, 2}, {1, 1, 2, 2, 3, 3, -1, -2, -1, -2, -1, -2});
}

TEST_CASE("a scalar condition selects a whole operand") {
  Tensor x = constant({1.0, 2.0, 3.0});
  Tensor y = constant({4.0, 5.0, 6.0});
  testing::ExpectTensor(where(constant(true), x, y), kFloat64, {3}, {1, 2, 3});
  testing::ExpectTensor(where(constant(false), x, y), kFloat64, {3}, {4, 5, 6});
  // The picked operand needs broadcasting: the general path.
  testing::ExpectTensor(where(constant(false), x, constant(0.0)), kFloat64, {3}, {0, 0, 0});
}

TEST_CASE("large where takes the threaded path and matches a reference loop") {
  const int64_t rows = 400, cols = 120;
  std::vector<double> c(rows * cols), x(rows * cols), y(cols), expected(rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i) {
    c[i] = (i * 2654435761u) % 3 == 0;
    x[i] = static_cast<double>(i);
  }
  for (int64_t j = 0; j < cols; ++j) y[j] = -static_cast<double>(j);
  for (int64_t i = 0; i < rows * cols; ++i) expected[i] = c[i] ? x[i] : y[i % cols];
  testing::ExpectTensor(where(MakeTensor(kBool, {rows, cols}, c),
                              MakeTensor(kInt64, {rows, cols}, x), MakeTensor(kInt64, {cols}, y)),
                        kInt64, {rows, cols}, expected);
  testing::ExpectTensor(
      where(MakeTensor(kBool, {rows, cols}, c), MakeTensor(kFloat32, {rows, cols}, x),
            MakeTensor(kFloat32, {rows, cols}, std::vector<double>(rows * cols, -1))),
      kFloat32, {rows, cols}, [&] {
        std::vector<double> e(rows * cols);
        for (int64_t i = 0; i < rows * cols; ++i) e[i] = c[i] ? x[i] : -1;
        return e;
      }());
}

TEST_CASE("where errors: shapes of all three, dtypes, non-bool condition") {
  testing::ExpectError(
      [] {
        where(constant({true, false, true}), constant({1.f, 2.f}), constant(0.f));
      },
      {"SelectV2", "incompatible shapes", "(3,)", "(2,)", "()", "where_test.cc"});
  testing::ExpectError([] { where(constant({true}), constant({1.f}), constant({1.0})); },
                       {"SelectV2", "float64", "float32"});
  testing::ExpectError([] { where(constant({1}), constant({1.f}), constant({1.f})); },
                       {"SelectV2", "condition must be bool", "int32"});
}

}  // namespace
}  // namespace duet
