// C++ operators on tensors: every operator, scalars on either side adopting the tensor's dtype,
// lossy scalars rejected, the user's line in errors, and types that convert to Tensor.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>

#include "core/constant.h"
#include "ops/math/math_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

// Stands in for types such as variables that convert implicitly to Tensor.
struct TensorLike {
  Tensor value;
  operator Tensor() const { return value; }
};

TEST_CASE("arithmetic operators on tensors") {
  Tensor a = constant({{1.f, 2.f}, {3.f, 4.f}});
  Tensor b = constant({2.f, -4.f});
  testing::ExpectTensor(a + b, kFloat32, {2, 2}, {3, -2, 5, 0});
  testing::ExpectTensor(a - b, kFloat32, {2, 2}, {-1, 6, 1, 8});
  testing::ExpectTensor(a * b, kFloat32, {2, 2}, {2, -8, 6, -16});
  testing::ExpectTensor(a / b, kFloat32, {2, 2}, {0.5, -0.5, 1.5, -1});
  testing::ExpectTensor(a % b, kFloat32, {2, 2}, {1, -2, 1, 0});
  testing::ExpectTensor(-a, kFloat32, {2, 2}, {-1, -2, -3, -4});
  testing::ExpectTensor((a + 1) * (a - 1), kFloat32, {2, 2}, {0, 3, 8, 15});
}

TEST_CASE("integer operators: / truncates, % follows the divisor's sign") {
  Tensor x = constant({7, -7, 7, -7});
  Tensor y = constant({2, 2, -2, -2});
  testing::ExpectTensor(x / y, kInt32, {4}, {3, -3, -3, 3});
  testing::ExpectTensor(x % y, kInt32, {4}, {1, 1, -1, -1});
  testing::ExpectTensor(-x, kInt32, {4}, {-7, 7, -7, 7});
  testing::ExpectTensor(x % 3, kInt32, {4}, {1, 2, 1, 2});
}

TEST_CASE("a scalar on either side adopts the tensor's dtype") {
  Tensor f = constant({1.f, 2.f});
  testing::ExpectTensor(f + 1, kFloat32, {2}, {2, 3});
  testing::ExpectTensor(1 + f, kFloat32, {2}, {2, 3});
  testing::ExpectTensor(2.5 * f, kFloat32, {2}, {2.5, 5});
  testing::ExpectTensor(f / 2.0f, kFloat32, {2}, {0.5, 1});
  testing::ExpectTensor(10 - f, kFloat32, {2}, {9, 8});
  Tensor d = constant({1.0, 2.0});
  testing::ExpectTensor(d * 0.1f, kFloat64, {2}, {0.1f, 0.2f}, 1e-12);  // the float's value
  testing::ExpectTensor(1 - d, kFloat64, {2}, {0, -1});
  Tensor i = constant({1, 2});
  testing::ExpectTensor(i * 3, kInt32, {2}, {3, 6});
  testing::ExpectTensor(i + 2.0, kInt32, {2}, {3, 4});  // a whole-number double is fine
  testing::ExpectTensor(7 / i, kInt32, {2}, {7, 3});
  Tensor l = from_vector<int64_t>({1, 2});
  const int64_t big = int64_t{1} << 60;
  CHECK((l + big).to_vector<int64_t>() == std::vector<int64_t>{big + 1, big + 2});  // exact
  CHECK((l - 1).dtype() == kInt64);
  Tensor h = cast(f, kFloat16);
  testing::ExpectTensor(cast(h, kFloat32) + 0.5, kFloat32, {2}, {1.5, 2.5});
}

TEST_CASE("comparison operators give bool tensors, with scalars on either side") {
  Tensor a = constant({1, 2, 3});
  Tensor b = constant({3, 2, 1});
  testing::ExpectTensor(a == b, kBool, {3}, {0, 1, 0});
  testing::ExpectTensor(a != b, kBool, {3}, {1, 0, 1});
  testing::ExpectTensor(a < b, kBool, {3}, {1, 0, 0});
  testing::ExpectTensor(a <= b, kBool, {3}, {1, 1, 0});
  testing::ExpectTensor(a > b, kBool, {3}, {0, 0, 1});
  testing::ExpectTensor(a >= b, kBool, {3}, {0, 1, 1});
  testing::ExpectTensor(a > 1, kBool, {3}, {0, 1, 1});
  testing::ExpectTensor(2 <= a, kBool, {3}, {0, 1, 1});
  testing::ExpectTensor(2 == a, kBool, {3}, {0, 1, 0});
  testing::ExpectTensor(constant({0.5f, 1.5f}) < 1, kBool, {2}, {1, 0});
}

TEST_CASE("logical operators on bool tensors, with bool scalars") {
  Tensor p = constant({true, true, false, false});
  Tensor q = constant({true, false, true, false});
  testing::ExpectTensor(p && q, kBool, {4}, {1, 0, 0, 0});
  testing::ExpectTensor(p || q, kBool, {4}, {1, 1, 1, 0});
  testing::ExpectTensor(!p, kBool, {4}, {0, 0, 1, 1});
  testing::ExpectTensor(p && true, kBool, {4}, {1, 1, 0, 0});
  testing::ExpectTensor(false || q, kBool, {4}, {1, 0, 1, 0});
  testing::ExpectTensor(p == true, kBool, {4}, {1, 1, 0, 0});
  testing::ExpectTensor((constant({1, 5}) > 2) && (constant({1, 5}) < 9), kBool, {2}, {0, 1});
}

TEST_CASE("types that convert to Tensor work as operands") {
  TensorLike w{constant({1.f, 2.f})};
  testing::ExpectTensor(w * w, kFloat32, {2}, {1, 4});
  testing::ExpectTensor(w + 1, kFloat32, {2}, {2, 3});
  testing::ExpectTensor(2 * w, kFloat32, {2}, {2, 4});
  testing::ExpectTensor(-w, kFloat32, {2}, {-1, -2});
}

TEST_CASE("a scalar that the tensor's dtype cannot hold is an error naming the operator") {
  Tensor i = constant({1, 2});
  testing::ExpectError([&] { return i + 1.5; },
                       {"operator+", "1.5", "int32", "cast", "operators_test.cc"});
  testing::ExpectError([&] { return (int64_t{1} << 40) * i; }, {"operator*", "1099511627776"});
  testing::ExpectError([&] { return constant({true}) && 2; }, {"operator&&", "2", "bool"});
  testing::ExpectError([&] { return i < std::nan(""); }, {"operator<", "nan", "int32"});
}

TEST_CASE("compound assignment rebinds the tensor, as Python does") {
  Tensor x = constant({1.f, 2.f});
  const Tensor before = x;
  x += constant({10.f, 20.f});
  x -= 1;
  x *= 2;
  x /= 4;
  testing::ExpectTensor(x, kFloat32, {2}, {5, 10.5});
  testing::ExpectTensor(before, kFloat32, {2}, {1, 2});  // the old tensor is unchanged
  Tensor i = constant({7, -7});
  i /= 2;  // integers truncate, as operator/
  testing::ExpectTensor(i, kInt32, {2}, {3, -3});
  const int line = __LINE__ + 1;
  testing::ExpectError([&] { i += 1.5; },
                       {"operator+=", "1.5", "int32", "operators_test.cc:" + std::to_string(line)});
  Tensor undefined;
  testing::ExpectError([&] { undefined *= 2; }, {"operator*=", "undefined"});
  const TensorLike like{constant({1.f, 1.f})};
  x += like;
  testing::ExpectTensor(x, kFloat32, {2}, {6, 11.5});
}

TEST_CASE("operator errors name the op, the shapes and the user's line") {
  Tensor a = constant({{1.f, 2.f, 3.f}});
  Tensor b = constant({1.f, 2.f});
  const int line = __LINE__ + 1;
  auto bad_add = [&] { return a + b; };
  testing::ExpectError(bad_add, {"AddV2", "incompatible shapes", "(1, 3)", "(2,)",
                                 "operators_test.cc:" + std::to_string(line)});
  const int scalar_line = __LINE__ + 1;
  auto bad_scalar = [&] { return 1 - b * constant({1.0}); };
  testing::ExpectError(bad_scalar, {"Mul", "float32", "float64",
                                    "operators_test.cc:" + std::to_string(scalar_line)});
  testing::ExpectError([&] { return a + 1 + b; }, {"AddV2", "incompatible shapes"});
  testing::ExpectError([&] { return !a; }, {"LogicalNot", "must be bool", "float32"});
  testing::ExpectError([&] { return constant({true}) + 1; },
                       {"AddV2", "dtype bool is not supported"});
  testing::ExpectError([] { return Tensor() + 1; }, {"operator+", "undefined"});
}

}  // namespace
}  // namespace duet
