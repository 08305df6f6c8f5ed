// Cast: all 49 dtype pairs, TensorFlow's conversion rules (truncation, x != 0 for bool, wrap for
// narrowing ints), defined results where C++ has none (NaN, out of range), 16-bit rounding against
// NumPy, the threaded path, and the op's TensorFlow attrs.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/constant.h"
#include "ops/math/math_ops.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::MakeTensor;

const std::vector<DType> kAll = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool};

TEST_CASE("cast converts between every pair of dtypes") {
  const std::vector<double> values = {0, 1, 3, -2, 100};
  for (DType src : kAll) {
    for (DType dst : kAll) {
      INFO(DTypeName(src) << " -> " << DTypeName(dst));
      std::vector<double> in = values, expected;
      if (src == kBool) {
        for (double& v : in) v = v != 0;
      }
      for (double v : in) expected.push_back(dst == kBool ? (v != 0) : v);
      testing::ExpectTensor(cast(MakeTensor(src, {5}, in), dst), dst, {5}, expected);
    }
  }
}

// Known values from tf.cast (TensorFlow 2.21): static_cast semantics, bool as 0/1.
TEST_CASE("uint8 casts to and from every numeric dtype") {
  const Tensor u = from_vector<uint8_t>({0, 1, 7, 128, 255});
  for (DType dst : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64}) {
    INFO("uint8 -> " << DTypeName(dst));
    testing::ExpectTensor(cast(u, dst), dst, {5}, {0, 1, 7, 128, 255}, 0);
  }
  testing::ExpectTensor(cast(u, kBool), kBool, {5}, {0, 1, 1, 1, 1});
  CHECK(cast(u, kFloat32).to_vector<float>() == std::vector<float>{0.f, 1.f, 7.f, 128.f, 255.f});
  // Floats truncate toward zero: tf.cast([3.7, 0.5, 254.9, 200.0], tf.uint8) == [3, 0, 254, 200].
  for (DType src : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    INFO(DTypeName(src) << " -> uint8");
    const std::vector<double> in = {3.7, 0.5, 254.9, 200};
    const Tensor x = MakeTensor(src, {4}, in);
    const std::vector<double> rounded = testing::ToDoubles(x);  // bfloat16 holds 254.9 as 255
    std::vector<double> expected;
    for (double v : rounded) expected.push_back(std::trunc(v));
    testing::ExpectTensor(cast(x, kUInt8), kUInt8, {4}, expected, 0);
  }
  CHECK(cast(constant(3.7f), kUInt8).item<uint8_t>() == 3);
  // Wider integers keep the low byte: tf.cast([300, 255, 1], tf.uint8) == [44, 255, 1].
  testing::ExpectTensor(cast(constant({300, 255, 1}), kUInt8), kUInt8, {3}, {44, 255, 1}, 0);
  testing::ExpectTensor(cast(constant<int64_t>({256 + 9, 0}), kUInt8), kUInt8, {2}, {9, 0}, 0);
  testing::ExpectTensor(cast(constant({true, false}), kUInt8), kUInt8, {2}, {1, 0}, 0);
  CHECK(cast(u, kUInt8).shares_buffer_with(u));
}

TEST_CASE("float to int truncates toward zero") {
  const std::vector<double> x = {-2.7, -1.5, -0.5, 0.0, 0.4, 1.5, 2.5, 3.99};
  const std::vector<double> expected = {-2, -1, 0, 0, 0, 1, 2, 3};
  for (DType src : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    for (DType dst : {kInt32, kInt64}) {
      INFO(DTypeName(src) << " -> " << DTypeName(dst));
      testing::ExpectTensor(cast(MakeTensor(src, {2, 4}, x), dst), dst, {2, 4}, expected);
    }
  }
}

TEST_CASE("float to int is defined for NaN and out-of-range values: 0 and saturation") {
  const double inf = INFINITY;
  const std::vector<double> x = {1e10, -1e10, std::nan(""), inf, -inf, 2147483647.0};
  testing::ExpectTensor(cast(constant(x, {6}), kInt32), kInt32, {6},
                        {2147483647, -2147483648.0, 0, 2147483647, -2147483648.0, 2147483647});
  Tensor big = cast(constant({1e19, -1e19, 9.2e18}), kInt64);
  std::vector<int64_t> got = big.to_vector<int64_t>();
  CHECK(got[0] == std::numeric_limits<int64_t>::max());
  CHECK(got[1] == std::numeric_limits<int64_t>::min());
  CHECK(got[2] == int64_t{9200000000000000000});
  CHECK(cast(constant(3e9f), kInt32).item<int32_t>() == std::numeric_limits<int32_t>::max());
}

TEST_CASE("narrowing int64 to int32 wraps like TensorFlow") {
  Tensor x = from_vector<int64_t>({int64_t{2147483653}, int64_t{-2147483655}, int64_t{3000000000}});
  CHECK(cast(x, kInt32).to_vector<int32_t>() ==
        std::vector<int32_t>{-2147483643, 2147483641, -1294967296});
}

TEST_CASE("anything to bool is x != 0, NaN included; bool to anything is 0 or 1") {
  testing::ExpectTensor(cast(constant({0.f, -0.f, 0.5f, std::nanf(""), -3.f}), kBool), kBool, {5},
                        {0, 0, 1, 1, 1});
  testing::ExpectTensor(cast(constant({0, 5, -1}), kBool), kBool, {3}, {0, 1, 1});
  testing::ExpectTensor(cast(MakeTensor(kFloat16, {2}, {0, 0.001}), kBool), kBool, {2}, {0, 1});
  for (DType dst : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64}) {
    testing::ExpectTensor(cast(constant({true, false}), dst), dst, {2}, {1, 0});
  }
}

TEST_CASE("16-bit floats round to nearest like NumPy") {
  Tensor x = constant({0.1, 1.0 / 3, 65504.0, 70000.0, 1e-8, -2.5});
  testing::ExpectTensor(cast(x, kFloat16), kFloat16, {6},
                        {0.0999755859375, 0.333251953125, 65504.0, INFINITY, 0.0, -2.5}, 0);
  testing::ExpectTensor(
      cast(x, kBFloat16), kBFloat16, {6},
      {0.10009765625, 0.333984375, 65536.0, 70144.0, 1.0011717677116394e-08, -2.5}, 0);
  testing::ExpectTensor(cast(cast(x, kFloat16), kFloat32), kFloat32, {6},
                        {0.0999755859375, 0.333251953125, 65504.0, INFINITY, 0.0, -2.5}, 0);
  testing::ExpectTensor(cast(constant({std::nan("")}), kBFloat16), kBFloat16, {1}, {std::nan("")});
}

TEST_CASE("cast keeps the shape and returns the input itself for a same-dtype cast") {
  Tensor x = MakeTensor(kInt32, {2, 1, 3}, {1, 2, 3, 4, 5, 6});
  testing::ExpectTensor(cast(x, kFloat64), kFloat64, {2, 1, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(cast(x, kInt32).shares_buffer_with(x));
  // The op itself (as a graph would run it) copies for SrcT == DstT.
  const OpDef* op = OpRegistry::Global().Find("Cast");
  REQUIRE(op != nullptr);
  OpCall call(op, {x}, {});
  call.attrs[op->attr_index("DstT")] = kInt32;
  Tensor y = RunSingleOutputOp(call);
  CHECK(!y.shares_buffer_with(x));
  testing::ExpectTensor(y, kInt32, {2, 1, 3}, {1, 2, 3, 4, 5, 6});
}

TEST_CASE("Cast has TensorFlow's attrs SrcT, DstT and Truncate") {
  const OpDef* op = OpRegistry::Global().Find("Cast");
  REQUIRE(op != nullptr);
  CHECK(op->attr_index("SrcT") == 0);
  CHECK(op->attr_index("DstT") >= 0);
  CHECK(op->attr_index("Truncate") >= 0);
}

// A Cast of x to `dtype` with Truncate set, as an imported TensorFlow graph runs it.
Tensor TruncatingCast(const Tensor& x, DType dtype) {
  const OpDef* op = OpRegistry::Global().Find("Cast");
  OpCall call(op, {x}, {});
  call.attrs[op->attr_index("DstT")] = dtype;
  call.attrs[op->attr_index("Truncate")] = true;
  return RunSingleOutputOp(call);
}

// Issue 37: Truncate=true truncates the mantissa instead of rounding (expected values from
// tf.raw_ops.Cast(..., Truncate=True) in TensorFlow 2.21).
TEST_CASE("Cast with Truncate truncates floats to fewer mantissa bits, as TensorFlow") {
  const std::vector<double> x = {
      1.00390625 + 1.0 / 1024, 1.1, -3.3, 65519.0, std::nan(""), INFINITY};
  const Tensor f32 = MakeTensor(kFloat32, {6}, x);
  testing::ExpectTensor(TruncatingCast(f32, kBFloat16), kBFloat16, {6},
                        {1.0, 1.09375, -3.296875, 65280.0, std::nan(""), INFINITY}, 0);
  testing::ExpectTensor(TruncatingCast(f32, kFloat16), kFloat16, {6},
                        {1.0048828125, 1.099609375, -3.298828125, 65504.0, std::nan(""), INFINITY},
                        0);
  // Rounding (the default) differs on the same values.
  testing::ExpectTensor(cast(f32, kBFloat16), kBFloat16, {6},
                        {1.0078125, 1.1015625, -3.296875, 65536.0, std::nan(""), INFINITY}, 0);
  const Tensor f64 = constant({1.1, -3.3, 3.4028235677973366e38});
  testing::ExpectTensor(TruncatingCast(f64, kFloat32), kFloat32, {3},
                        {1.0999999046325684, -3.299999952316284, 3.4028234663852886e38}, 0);
  testing::ExpectTensor(cast(f64, kFloat32), kFloat32, {3},
                        {1.100000023841858, -3.299999952316284, INFINITY}, 0);
  // TensorFlow truncates only float32 -> float16/bfloat16 and float64 -> float32/float16: its
  // float64 -> bfloat16 and float16 -> bfloat16 round, and so do duet's.
  testing::ExpectTensor(TruncatingCast(f64, kBFloat16), kBFloat16, {3},
                        {1.1015625, -3.296875, INFINITY}, 0);
  testing::ExpectTensor(TruncatingCast(MakeTensor(kFloat16, {1}, {1.01171875}), kBFloat16),
                        kBFloat16, {1}, {1.015625}, 0);
  // Integers and widening conversions ignore the attr: int64 -> float32 still rounds.
  testing::ExpectTensor(TruncatingCast(constant({int64_t{33554435}}), kFloat32), kFloat32, {1},
                        {33554436}, 0);
  testing::ExpectTensor(TruncatingCast(MakeTensor(kBFloat16, {1}, {1.5}), kFloat32), kFloat32, {1},
                        {1.5}, 0);
}

TEST_CASE("large casts take the threaded path and match a reference loop") {
  const int64_t n = 150001;
  std::vector<double> x(n), truncated(n), bf16(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = std::fmod(i * 1.37, 2000.0) - 1000.0;
    truncated[i] = std::trunc(static_cast<float>(x[i]));
    bf16[i] = static_cast<float>(bfloat16(static_cast<float>(x[i])));
  }
  Tensor f = MakeTensor(kFloat32, {n}, x);
  testing::ExpectTensor(cast(f, kInt32), kInt32, {n}, truncated, 0);
  testing::ExpectTensor(cast(f, kBFloat16), kBFloat16, {n}, bf16, 0);
}

TEST_CASE("casting an undefined tensor is an error, not a crash") {
  testing::ExpectError([] { cast(Tensor(), kInt32); }, {"Cast", "undefined", "cast_test.cc"});
}

}  // namespace
}  // namespace duet
