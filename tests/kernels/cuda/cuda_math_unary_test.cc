// CUDA unary math kernels, Cast and SelectV2 against the CPU ones: every op and dtype, empty,
// odd (not a multiple of the 16-byte pack or the block) and > 1M-element sizes; Cast over all 49
// dtype pairs with NaN, infinities, out-of-range values and fractions; SelectV2 with three-way
// broadcasting in every dtype; Bucketize in its four dtypes.
//
// Tolerances: exact (0) for Neg, Abs, Square, Sign, Floor, Ceil, Round, Rint, Sqrt, Rsqrt,
// Softsign, LeakyRelu (correctly rounded IEEE operations on both devices), LogicalNot, IsNan,
// IsInf, IsFinite, CheckNumerics, Cast and SelectV2. Exp, Log, Log1p, Selu, Erf, Erfc, Sin, Cos:
// 2e-6 relative in float32 (CUDA's and SLEEF's functions each err up to a few ulps), 1e-13 in
// float64, and one unit in the last place of the 16-bit types (1e-3 float16, 8e-3 bfloat16).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "duet.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "tests/cuda_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

Tensor Run(const std::string& op, const std::vector<Tensor>& inputs) {
  OpCall call(OpRegistry::Global().Find(op), TensorList(inputs.begin(), inputs.end()), OpSite());
  return RunSingleOutputOp(call);
}

bool IsFloat(DType t) { return t == kFloat32 || t == kFloat64 || t == kFloat16 || t == kBFloat16; }

// Floats with edge cases (signed zeros, infinities, NaN, halves for Floor/Ceil, tiny and huge
// magnitudes), integers in [-100, 100] with the extremes, bools.
std::vector<double> Values(DType dtype, int64_t n, int64_t seed) {
  static const std::vector<double> kEdges = {0.0,  -0.0,  1,    -1,    0.5,   -0.5, 2.5,   -2.5,
                                             kInf, -kInf, kNan, 1e-30, -1e-7, 1e20, -1e20, 70000};
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = i * 5 + seed;
    if (dtype == kBool) {
      v[i] = (k / 2) % 2;
    } else if (IsFloat(dtype)) {
      v[i] = k % 3 == 0 ? kEdges[(k / 3) % kEdges.size()] : std::sin(0.37 * k) * (1 + k % 11);
    } else if (k % 17 == 0) {
      v[i] = dtype == kInt32 ? std::numeric_limits<int32_t>::min() : -9.2e18;
    } else {
      v[i] = static_cast<double>((k * 37) % 201 - 100);
    }
  }
  return v;
}

const std::vector<Shape>& Shapes() {
  static const std::vector<Shape> shapes = {{}, {0}, {3, 0}, {1}, {7}, {17, 33}, {1001}};
  return shapes;
}
const Shape kLarge{(1 << 20) + 5};

// Ops whose CUDA and SLEEF implementations may differ by a few ulps.
bool Transcendental(const std::string& op) {
  for (const char* name : {"Exp", "Log", "Log1p", "Selu", "Erf", "Erfc", "Erfinv", "Sin", "Cos"}) {
    if (op == name) return true;
  }
  return false;
}

double Tolerance(const std::string& op, DType dtype) {
  if (!Transcendental(op)) return 0;
  switch (dtype) {
    case kFloat32:
      return 2e-6;
    case kFloat64:
      return 1e-13;
    case kFloat16:
      return 1e-3;
    default:
      return 8e-3;
  }
}

void CheckUnary(const std::string& op, DType dtype, const Shape& shape) {
  INFO(op << " " << DTypeName(dtype) << " " << shape.str());
  const Tensor x = testing::MakeTensor(dtype, shape, Values(dtype, shape.num_elements(), 1));
  testing::ExpectDeviceMatchesCpu(
      [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{Run(op, in)}; }, {x},
      Tolerance(op, dtype));
}

const std::vector<DType> kArithmetic = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64};
const std::vector<DType> kFloats = {kFloat32, kFloat64, kFloat16, kBFloat16};
const std::vector<DType> kAll = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool};

TEST_CASE("CUDA Neg, Abs, Square, Sign match the CPU (integers included)") {
  if (testing::SkipWithoutTestDevice()) return;
  for (const char* op : {"Neg", "Abs", "Square", "Sign"}) {
    for (DType dtype : kArithmetic) {
      for (const Shape& shape : Shapes()) CheckUnary(op, dtype, shape);
    }
    CheckUnary(op, kFloat32, kLarge);
    CheckUnary(op, kInt64, kLarge);
  }
}

TEST_CASE("CUDA Floor, Ceil, Sqrt, Rsqrt, Exp, Log, Log1p match the CPU") {
  if (testing::SkipWithoutTestDevice()) return;
  for (const char* op : {"Floor", "Ceil", "Sqrt", "Rsqrt", "Exp", "Log", "Log1p"}) {
    for (DType dtype : kFloats) {
      for (const Shape& shape : Shapes()) CheckUnary(op, dtype, shape);
    }
    CheckUnary(op, kFloat32, kLarge);
    CheckUnary(op, kBFloat16, kLarge);
  }
}

TEST_CASE(
    "CUDA Round, Rint, Selu, Softsign, Erf, Erfc, Erfinv, Sin, Cos, LeakyRelu match the CPU") {
  if (testing::SkipWithoutTestDevice()) return;
  for (DType dtype : {kInt32, kInt64}) {
    for (const Shape& shape : Shapes()) CheckUnary("Round", dtype, shape);
  }
  for (const char* op :
       {"Round", "Rint", "Selu", "Softsign", "Erf", "Erfc", "Erfinv", "Sin", "Cos", "LeakyRelu"}) {
    for (DType dtype : kFloats) {
      for (const Shape& shape : Shapes()) CheckUnary(op, dtype, shape);
    }
    CheckUnary(op, kFloat32, kLarge);
  }
}

TEST_CASE("CUDA LogicalNot matches the CPU") {
  if (testing::SkipWithoutTestDevice()) return;
  for (const Shape& shape : Shapes()) CheckUnary("LogicalNot", kBool, shape);
  CheckUnary("LogicalNot", kBool, kLarge);
}

TEST_CASE("CUDA IsNan, IsInf, IsFinite and CheckNumerics match the CPU") {
  if (testing::SkipWithoutTestDevice()) return;
  for (const char* op : {"IsNan", "IsInf", "IsFinite"}) {
    for (DType dtype : kFloats) {
      for (const Shape& shape : Shapes()) CheckUnary(op, dtype, shape);
    }
    CheckUnary(op, kFloat32, kLarge);
  }
  for (DType dtype : kFloats) {
    INFO(DTypeName(dtype));
    std::vector<double> v(kLarge.num_elements(), 1.5);
    testing::ExpectDeviceMatchesCpu(
        [](const std::vector<Tensor>& in) {
          return std::vector<Tensor>{check_numerics(in[0], "fine")};
        },
        {testing::MakeTensor(dtype, kLarge, v)}, 0);
    v[v.size() - 3] = kNan;
    testing::ExpectError(
        [&] { check_numerics(testing::OnTestDevice(testing::MakeTensor(dtype, kLarge, v)), "m"); },
        {"CheckNumerics", "m : Tensor had NaN values"});
    v[7] = -kInf;
    testing::ExpectError(
        [&] { check_numerics(testing::OnTestDevice(testing::MakeTensor(dtype, kLarge, v)), "m"); },
        {"CheckNumerics", "m : Tensor had Inf and NaN values"});
    v[v.size() - 3] = 0;
    testing::ExpectError(
        [&] { check_numerics(testing::OnTestDevice(testing::MakeTensor(dtype, kLarge, v)), "m"); },
        {"CheckNumerics", "m : Tensor had Inf values"});
  }
}

TEST_CASE("CUDA Erfinv matches the CPU across (-1, 1)") {
  if (testing::SkipWithoutTestDevice()) return;
  for (DType dtype : {kFloat32, kFloat64}) {
    std::vector<double> v(20001);
    for (size_t i = 0; i < v.size(); ++i) v[i] = (static_cast<double>(i) - 10000) / 10000.5;
    testing::ExpectDeviceMatchesCpu(
        [](const std::vector<Tensor>& in) { return std::vector<Tensor>{erfinv(in[0])}; },
        {testing::MakeTensor(dtype, {20001}, v)}, Tolerance("Erfinv", dtype));
  }
}

TEST_CASE("CUDA Bucketize matches the CPU, NaN and infinities included") {
  if (testing::SkipWithoutTestDevice()) return;
  const auto buckets = [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{bucketize(in[0], {-1e20f, -2.5f, -0.f, 0.5f, 1.f, 69999.f})};
  };
  for (DType dtype : {kFloat32, kFloat64, kInt32, kInt64}) {
    for (const Shape& shape : Shapes()) {
      INFO(DTypeName(dtype) << " " << shape.str());
      testing::ExpectDeviceMatchesCpu(
          buckets, {testing::MakeTensor(dtype, shape, Values(dtype, shape.num_elements(), 1))}, 0);
    }
  }
  const auto no_boundaries = [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{bucketize(in[0], {})};
  };
  testing::ExpectDeviceMatchesCpu(no_boundaries, {constant({1.f, 2.f})}, 0);
}

TEST_CASE("CUDA ClipByValue matches the CPU with scalar and full-shape bounds") {
  if (testing::SkipWithoutTestDevice()) return;
  const auto clip = [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{clip_by_value(in[0], in[1], in[2])};
  };
  for (DType dtype : kArithmetic) {
    for (const Shape& shape : Shapes()) {
      INFO(DTypeName(dtype) << " " << shape.str());
      const Tensor t = testing::MakeTensor(dtype, shape, Values(dtype, shape.num_elements(), 1));
      const Tensor lo = testing::MakeTensor(dtype, shape, Values(dtype, shape.num_elements(), 2));
      const Tensor hi = testing::MakeTensor(dtype, shape, Values(dtype, shape.num_elements(), 3));
      testing::ExpectDeviceMatchesCpu(clip, {t, lo, hi}, 0);
      testing::ExpectDeviceMatchesCpu(
          clip, {t, testing::MakeTensor(dtype, {}, {-2}), testing::MakeTensor(dtype, {}, {3})}, 0);
      testing::ExpectDeviceMatchesCpu(clip, {t, testing::MakeTensor(dtype, {}, {-2}), hi}, 0);
    }
  }
}

TEST_CASE("CUDA Cast matches the CPU for every dtype pair") {
  if (testing::SkipWithoutTestDevice()) return;
  for (DType from : kAll) {
    std::vector<double> values = Values(from, 1001, 2);
    if (IsFloat(from)) {  // out of int32 and int64 range, and the boundaries
      for (double v : {3e9, -3e9, 2147483647.0, -2147483648.0, 9.3e18, -9.3e18, 0.99, -0.99}) {
        values.push_back(v);
      }
    }
    const Shape shape{static_cast<int64_t>(values.size())};
    const Tensor x = testing::MakeTensor(from, shape, values);
    for (DType to : kAll) {
      INFO(DTypeName(from) << " -> " << DTypeName(to));
      testing::ExpectDeviceMatchesCpu(
          [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{cast(in[0], to)}; }, {x},
          0);
      const Tensor empty = testing::MakeTensor(from, {0, 2}, {});
      testing::ExpectDeviceMatchesCpu(
          [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{cast(in[0], to)}; },
          {empty}, 0);
    }
  }
  const Tensor large = testing::MakeTensor(kFloat32, kLarge, Values(kFloat32, kLarge[0], 0));
  for (DType to : {kInt32, kFloat16, kBool}) {
    testing::ExpectDeviceMatchesCpu(
        [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{cast(in[0], to)}; },
        {large}, 0);
  }
}

// Issue 37: Cast with Truncate=true (Note [Cast with Truncate] in kernels/cpu/math/cast_kernel.cc)
// zeroes the mantissa bits the destination lacks, on both devices; the other pairs ignore it.
TEST_CASE("CUDA Cast with Truncate matches the CPU for every float pair") {
  if (testing::SkipWithoutTestDevice()) return;
  const OpDef* op = OpRegistry::Global().Find("Cast");
  const auto truncating_cast = [op](DType to) {
    return [op, to](const std::vector<Tensor>& in) {
      OpCall call(op, {in[0]}, {});
      call.attrs[op->attr_index("DstT")] = to;
      call.attrs[op->attr_index("Truncate")] = true;
      return std::vector<Tensor>{RunSingleOutputOp(call)};
    };
  };
  for (DType from : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    std::vector<double> values = Values(from, 1001, 4);
    for (double v : {1.00488, 1.1, -1.1, 65519.0, 65520.0, 3e-8, 1e-40, 3.4e38})
      values.push_back(v);
    const Tensor x = testing::MakeTensor(from, {static_cast<int64_t>(values.size())}, values);
    for (DType to : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kBool}) {
      INFO(DTypeName(from) << " -> " << DTypeName(to) << " with Truncate");
      testing::ExpectDeviceMatchesCpu(truncating_cast(to), {x}, 0);
    }
  }
}

struct SelectPattern {
  Shape cond, t, e;
};

TEST_CASE("CUDA SelectV2 matches the CPU with three-way broadcasting") {
  if (testing::SkipWithoutTestDevice()) return;
  const std::vector<SelectPattern> patterns = {
      {{17, 33}, {17, 33}, {17, 33}},  // contiguous
      {{}, {1001}, {1001}},            // scalar condition
      {{1001}, {}, {1001}},            // scalar t
      {{1001}, {1001}, {}},            // scalar e
      {{5, 1}, {1, 7}, {5, 7}},        // strided
      {{4, 1, 6}, {5, 1}, {}},
      {{2, 1, 3}, {1, 4, 1}, {2, 4, 3}},
      {{0, 3}, {3}, {1}},  // empty
      {{(1 << 20) + 1}, {(1 << 20) + 1}, {}},
      {{1025, 1}, {1024}, {1025, 1024}},
  };
  for (DType dtype : kAll) {
    for (const SelectPattern& p : patterns) {
      INFO(DTypeName(dtype) << " cond " << p.cond.str() << " t " << p.t.str() << " e "
                            << p.e.str());
      const Tensor c = testing::MakeTensor(kBool, p.cond, Values(kBool, p.cond.num_elements(), 0));
      const Tensor t = testing::MakeTensor(dtype, p.t, Values(dtype, p.t.num_elements(), 1));
      const Tensor e = testing::MakeTensor(dtype, p.e, Values(dtype, p.e.num_elements(), 2));
      testing::ExpectDeviceMatchesCpu(
          [](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{where(in[0], in[1], in[2])};
          },
          {c, t, e}, 0);
    }
  }
}

}  // namespace
}  // namespace duet
