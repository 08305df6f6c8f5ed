// float16 and bfloat16 math: every op computes in float32 and rounds once, so each result must
// equal the float32 op on the widened inputs, cast back. Plus hand-checked rounding cases,
// broadcasting and the threaded path.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>

#include "core/constant.h"
#include "ops/math/math_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using BinaryFn = Tensor (*)(const Tensor&, const Tensor&, OpSite);
using UnaryFn = Tensor (*)(const Tensor&, OpSite);

const DType kHalves[] = {kFloat16, kBFloat16};

// Values that exercise rounding, signs, zero and a magnitude where bfloat16 is coarse.
Tensor Values(const Shape& shape, double scale, double offset) {
  std::vector<float> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<float>(std::fmod(i * scale, 13.0) + offset);
  }
  return from_vector(v, shape);
}

// fn on `dtype` inputs must equal fn on their float32 widening, rounded to `dtype`.
void CheckBinary(BinaryFn fn, DType dtype, const Tensor& x32, const Tensor& y32) {
  const Tensor x = cast(x32, dtype), y = cast(y32, dtype);
  const Tensor got = fn(x, y, {});
  const Tensor want32 = fn(cast(x, kFloat32), cast(y, kFloat32), {});
  const Tensor want = want32.dtype() == kBool ? want32 : cast(want32, dtype);
  testing::ExpectTensorNear(got, want, 0);
}

TEST_CASE("binary ops and comparisons on float16 and bfloat16 round the float32 result") {
  const Tensor x = Values({4, 6}, 1.7, -6.3);
  const Tensor y = Values({4, 6}, 2.9, 0.6);  // positive: a valid divisor and pow base
  for (DType dtype : kHalves) {
    INFO(DTypeName(dtype));
    for (BinaryFn fn : {add, subtract, multiply, divide, floor_mod, maximum, minimum, equal,
                        not_equal, less, less_equal, greater, greater_equal}) {
      CheckBinary(fn, dtype, x, y);
    }
    CheckBinary(pow, dtype, y, x);
    CheckBinary(add, dtype, x, Values({6}, 0.3, -1));          // row vector
    CheckBinary(multiply, dtype, x, Values({4, 1}, 0.3, -1));  // column vector
    CheckBinary(subtract, dtype, Values({2, 1, 3}, 1.1, -2), Values({4, 1}, 0.7, 0));
  }
}

TEST_CASE("unary ops on float16 and bfloat16 round the float32 result") {
  const Tensor x = Values({5, 7}, 0.37, -6.5);
  const Tensor positive = Values({5, 7}, 0.37, 0.01);
  for (DType dtype : kHalves) {
    INFO(DTypeName(dtype));
    for (UnaryFn fn : {negative, abs, square, sign, relu, relu6, exp, tanh, sigmoid, elu, softplus,
                       floor, ceil}) {
      const Tensor h = cast(x, dtype);
      testing::ExpectTensorNear(fn(h, {}), cast(fn(cast(h, kFloat32), {}), dtype), 0);
    }
    for (UnaryFn fn : {log, log1p, sqrt, rsqrt}) {
      const Tensor h = cast(positive, dtype);
      testing::ExpectTensorNear(fn(h, {}), cast(fn(cast(h, kFloat32), {}), dtype), 0);
    }
  }
}

TEST_CASE("half-precision results round to nearest even") {
  // 2048 + 1 = 2049 needs 12 significant bits; float16 has 11, and the tie goes to even 2048.
  const Tensor h = cast(constant({2048.f, 2048.f}), kFloat16);
  testing::ExpectTensor(add(h, cast(constant({1.f, 3.f}), kFloat16)), kFloat16, {2}, {2048, 2052},
                        0);
  // bfloat16 keeps 8 significant bits: 1 + 2^-8 ties to 1, 1 + 3 * 2^-8 rounds up to 1 + 2^-6.
  const Tensor b = cast(constant({1.f, 1.f}), kBFloat16);
  testing::ExpectTensor(add(b, cast(constant({0.00390625f, 0.01171875f}), kBFloat16)), kBFloat16,
                        {2}, {1, 1.015625}, 0);
  // exp(12) overflows float16 (max 65504) but not bfloat16.
  testing::ExpectTensor(exp(cast(constant({12.f}), kFloat16)), kFloat16, {1}, {INFINITY});
  CHECK(std::isfinite(cast(exp(cast(constant({12.f}), kBFloat16)), kFloat32).item<float>()));
}

TEST_CASE("large half-precision ops take the threaded path and match the float32 reference") {
  const Tensor x = Values({300, 200}, 0.013, -5);
  const Tensor row = Values({200}, 0.7, 0.5);
  for (DType dtype : kHalves) {
    INFO(DTypeName(dtype));
    CheckBinary(multiply, dtype, x, row);
    CheckBinary(less, dtype, x, row);
    const Tensor h = cast(x, dtype);
    testing::ExpectTensorNear(sigmoid(h), cast(sigmoid(cast(h, kFloat32)), dtype), 0);
  }
}

TEST_CASE("mixing a half-precision tensor with float32 is an error suggesting a cast") {
  testing::ExpectError([] { add(cast(constant({1.f}), kBFloat16), constant({1.f})); },
                       {"AddV2", "bfloat16", "float32", "cast"});
}

}  // namespace
}  // namespace duet
