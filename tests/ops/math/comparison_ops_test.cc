// Comparisons and logical ops: bool results for every supported dtype, broadcasting, NaN, the
// incompatible_shape_error=false form of Equal, and error messages.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>

#include "core/constant.h"
#include "ops/math/math_ops.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::MakeTensor;

using BinaryFn = Tensor (*)(const Tensor&, const Tensor&, OpSite);

TEST_CASE("comparisons give bool tensors on every numeric dtype") {
  const std::vector<double> x = {-2, 0, 3, 5};
  const std::vector<double> y = {1, 0, 3, 4};
  const std::vector<std::pair<BinaryFn, std::vector<double>>> cases = {
      {equal, {0, 1, 1, 0}},      {not_equal, {1, 0, 0, 1}}, {less, {1, 0, 0, 0}},
      {less_equal, {1, 1, 1, 0}}, {greater, {0, 0, 0, 1}},   {greater_equal, {0, 1, 1, 1}},
  };
  for (DType dtype : {kFloat32, kFloat64, kInt32, kInt64}) {
    INFO(DTypeName(dtype));
    for (const auto& [fn, expected] : cases) {
      testing::ExpectTensor(fn(MakeTensor(dtype, {2, 2}, x), MakeTensor(dtype, {2, 2}, y), {}),
                            kBool, {2, 2}, expected);
    }
  }
}

TEST_CASE("equal and not_equal on bool tensors") {
  Tensor a = constant({true, true, false, false});
  Tensor b = constant({true, false, true, false});
  testing::ExpectTensor(equal(a, b), kBool, {4}, {1, 0, 0, 1});
  testing::ExpectTensor(not_equal(a, b), kBool, {4}, {0, 1, 1, 0});
}

TEST_CASE("comparisons broadcast: scalar, row, column, rank 3") {
  Tensor m = constant({{1, 2, 3}, {4, 5, 6}});
  testing::ExpectTensor(greater(m, constant(3)), kBool, {2, 3}, {0, 0, 0, 1, 1, 1});
  testing::ExpectTensor(less(constant(3), m), kBool, {2, 3}, {0, 0, 0, 1, 1, 1});
  testing::ExpectTensor(equal(m, constant({1, 5, 0})), kBool, {2, 3}, {1, 0, 0, 0, 1, 0});
  testing::ExpectTensor(less_equal(m, constant({{2}, {5}})), kBool, {2, 3}, {1, 1, 0, 1, 1, 0});
  testing::ExpectTensor(greater_equal(constant({{{1.0}}, {{4.0}}}), constant({{0.0, 2.0, 4.0}})),
                        kBool, {2, 1, 3}, {1, 0, 0, 1, 1, 1});
}

TEST_CASE("comparisons with NaN are false except not_equal") {
  Tensor nan = constant({std::nanf("")});
  Tensor one = constant({1.f});
  for (BinaryFn fn : {equal, less, less_equal, greater, greater_equal}) {
    testing::ExpectTensor(fn(nan, one, {}), kBool, {1}, {0});
    testing::ExpectTensor(fn(nan, nan, {}), kBool, {1}, {0});
  }
  testing::ExpectTensor(not_equal(nan, nan), kBool, {1}, {1});
}

TEST_CASE("large comparisons take the threaded path and match a reference loop") {
  const int64_t rows = 500, cols = 130;
  std::vector<double> x(rows * cols), y(cols);
  for (int64_t i = 0; i < rows * cols; ++i) x[i] = static_cast<double>((i * 7919) % 263);
  for (int64_t j = 0; j < cols; ++j) y[j] = static_cast<double>((j * 31) % 263);
  std::vector<double> expected(rows * cols);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) expected[i * cols + j] = x[i * cols + j] < y[j];
  }
  testing::ExpectTensor(less(MakeTensor(kInt64, {rows, cols}, x), MakeTensor(kInt64, {cols}, y)),
                        kBool, {rows, cols}, expected);
}

TEST_CASE("logical_and, logical_or, logical_not with broadcasting") {
  Tensor a = constant({{true, false}, {true, true}});
  Tensor row = constant({true, false});
  testing::ExpectTensor(logical_and(a, row), kBool, {2, 2}, {1, 0, 1, 0});
  testing::ExpectTensor(logical_or(a, constant({{false}, {false}})), kBool, {2, 2}, {1, 0, 1, 1});
  testing::ExpectTensor(logical_or(constant(false), row), kBool, {2}, {1, 0});
  testing::ExpectTensor(logical_not(a), kBool, {2, 2}, {0, 1, 0, 0});
}

TEST_CASE("Equal with incompatible_shape_error=false answers false for shapes that differ") {
  const OpDef* op = OpRegistry::Global().Find("Equal");
  REQUIRE(op != nullptr);
  const int attr = op->attr_index("incompatible_shape_error");
  REQUIRE(attr >= 0);
  OpCall call(op, {constant({1.f, 2.f, 3.f}), constant({1.f, 2.f})}, {});
  call.attrs[attr] = false;
  testing::ExpectTensor(RunSingleOutputOp(call), kBool, {}, {0});
  const OpDef* ne = OpRegistry::Global().Find("NotEqual");
  OpCall call_ne(ne, {constant({1.f, 2.f, 3.f}), constant({1.f, 2.f})}, {});
  call_ne.attrs[attr] = false;
  testing::ExpectTensor(RunSingleOutputOp(call_ne), kBool, {}, {1});
  // Compatible shapes still compare elementwise.
  OpCall ok(op, {constant({1.f, 2.f}), constant({1.f, 3.f})}, {});
  ok.attrs[attr] = false;
  testing::ExpectTensor(RunSingleOutputOp(ok), kBool, {2}, {1, 0});
}

TEST_CASE("comparison errors: shapes, mixed dtypes, unsupported dtypes") {
  testing::ExpectError(
      [] {
        less(constant({1, 2, 3}), constant({1, 2}));
      },
      {"Less", "incompatible shapes", "(3,)", "(2,)", "int32", "comparison_ops_test.cc"});
  testing::ExpectError(
      [] {
        equal(constant({1, 2}), constant({1.f, 2.f}));
      },
      {"Equal", "int32", "float32", "cast"});
  testing::ExpectError([] { less(constant({true}), constant({false})); },
                       {"Less", "dtype bool is not supported"});
  testing::ExpectError([] { logical_and(constant({1}), constant({1})); },
                       {"LogicalAnd", "must be bool", "int32"});
  testing::ExpectError([] { logical_not(constant({1.f})); },
                       {"LogicalNot", "must be bool", "float32"});
}

}  // namespace
}  // namespace duet
