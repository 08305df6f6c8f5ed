// CUDA binary math kernels against the CPU ones: AddV2, Sub, Mul, Div, RealDiv, FloorMod, Pow,
// Maximum, Minimum, the comparisons and the logical ops, in every dtype each has, over broadcast
// patterns (same shape, scalar either side, row/column vectors, general strided, empty, odd and
// > 1M-element sizes). Also the integer errors (zero divisor, negative exponent) and Equal's
// incompatible_shape_error=false.
//
// Tolerances: exact (0) for arithmetic, comparisons and logic in every dtype (the same IEEE
// operations; 16-bit floats compute in float32 and round once on both devices). Pow: 2e-6
// relative in float32 (CUDA's powf and SLEEF's each err a few ulps), 1e-13 in float64, and one
// unit in the last place of the 16-bit types (1e-3 float16, 8e-3 bfloat16) where a float32
// difference can flip a rounding.
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

// Values with edge cases (signed zeros, infinities, NaN, ties between x and y) for floats;
// integers in [-100, 100] (non-zero when `nonzero`); alternating-ish bools.
std::vector<double> Values(DType dtype, int64_t n, int64_t seed, bool nonzero = false) {
  static const std::vector<double> kEdges = {0.0, -0.0, 1, -1, 2.5, -2.5, kInf, -kInf, kNan, 3};
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = i * 7 + seed;
    if (dtype == kBool) {
      v[i] = (k / 3) % 2;
    } else if (IsFloat(dtype)) {
      v[i] = k % 4 == 0 ? kEdges[(k / 4) % kEdges.size()]
                        : std::round(std::sin(0.37 * k) * 40) / 8;  // ties are common
      if (nonzero && v[i] == 0) v[i] = 1.5;
    } else {
      v[i] = static_cast<double>((k * 37) % 201 - 100);
      if (nonzero && v[i] == 0) v[i] = 7;
    }
  }
  return v;
}

struct Pattern {
  Shape x, y;
};

// Broadcast patterns: every path of the kernels.
const std::vector<Pattern>& Patterns() {
  static const std::vector<Pattern> patterns = {
      {{17, 33}, {17, 33}},  // same shape, odd size
      {{}, {1001}},          // scalar x
      {{1001}, {}},          // scalar y
      {{1}, {5, 7}},         // one-element x of another rank
      {{257, 3}, {3}},       // row vector
      {{257, 1}, {1, 3}},    // outer
      {{4, 1, 6}, {5, 1}},   // general strided
      {{2, 3, 4, 5, 6}, {3, 1, 5, 1}},
      {{2, 1, 3, 1, 2, 1, 2}, {1, 2, 1, 3, 1, 2, 1}},  // seven dims that do not merge
      {{0, 3}, {3}},                                   // empty
      {{0}, {}},                                       // empty with a scalar
      {{}, {}},                                        // scalars
      {{3}, {1}},                                      // one-element y with a dim
  };
  return patterns;
}

// Large: > 1M elements, many blocks, not a multiple of the pack or block size.
const std::vector<Pattern>& LargePatterns() {
  static const std::vector<Pattern> patterns = {
      {{(1 << 20) + 3}, {(1 << 20) + 3}},
      {{1025, 1024}, {1024}},
      {{1025, 1, 1024}, {1, 3, 1}},
  };
  return patterns;
}

double Tolerance(const std::string& op, DType dtype) {
  if (op != "Pow" && op != "Atan2") return 0;
  switch (dtype) {
    case kFloat32:
      return 2e-6;
    case kFloat64:
      return 1e-13;
    case kFloat16:
      return 1e-3;
    case kBFloat16:
      return 8e-3;
    default:
      return 0;
  }
}

void CheckOp(const std::string& op, DType dtype, const std::vector<Pattern>& patterns,
             bool nonzero_y = false) {
  for (const Pattern& p : patterns) {
    INFO(op << " " << DTypeName(dtype) << " x " << p.x.str() << " y " << p.y.str());
    std::vector<double> yv = Values(dtype, p.y.num_elements(), 3, nonzero_y);
    if (op == "Pow" && !IsFloat(dtype)) {
      for (double& v : yv) v = std::fmod(std::abs(v), 6);  // non-negative integer exponents
    }
    const Tensor x = testing::MakeTensor(dtype, p.x, Values(dtype, p.x.num_elements(), 0));
    const Tensor y = testing::MakeTensor(dtype, p.y, yv);
    testing::ExpectDeviceMatchesCpu(
        [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{Run(op, in)}; }, {x, y},
        Tolerance(op, dtype));
  }
}

const std::vector<DType> kArithmetic = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64};
const std::vector<DType> kFloats = {kFloat32, kFloat64, kFloat16, kBFloat16};

TEST_CASE("CUDA AddV2, Sub, Mul, Maximum, Minimum match the CPU") {
  if (testing::SkipWithoutTestDevice()) return;
  for (const char* op : {"AddV2", "Sub", "Mul", "Maximum", "Minimum"}) {
    for (DType dtype : kArithmetic) CheckOp(op, dtype, Patterns());
  }
  for (DType dtype : {kFloat32, kInt64, kFloat16}) CheckOp("AddV2", dtype, LargePatterns());
}

TEST_CASE("CUDA RealDiv, Div, FloorMod, Pow match the CPU") {
  if (testing::SkipWithoutTestDevice()) return;
  for (DType dtype : kFloats) {
    for (const char* op : {"RealDiv", "Div", "FloorMod", "Pow"}) CheckOp(op, dtype, Patterns());
  }
  for (DType dtype : {kInt32, kInt64}) {
    CheckOp("Div", dtype, Patterns(), /*nonzero_y=*/true);
    CheckOp("FloorMod", dtype, Patterns(), /*nonzero_y=*/true);
    CheckOp("Pow", dtype, Patterns());
  }
  CheckOp("Pow", kFloat32, LargePatterns());
  CheckOp("FloorMod", kInt32, LargePatterns(), /*nonzero_y=*/true);
}

TEST_CASE("CUDA FloorDiv, TruncateDiv, SquaredDifference, Atan2 match the CPU") {
  if (testing::SkipWithoutTestDevice()) return;
  for (DType dtype : kFloats) {
    for (const char* op : {"FloorDiv", "TruncateDiv", "SquaredDifference", "Atan2"}) {
      CheckOp(op, dtype, Patterns());
    }
  }
  for (DType dtype : {kInt32, kInt64}) {
    CheckOp("FloorDiv", dtype, Patterns(), /*nonzero_y=*/true);
    CheckOp("TruncateDiv", dtype, Patterns(), /*nonzero_y=*/true);
    CheckOp("SquaredDifference", dtype, Patterns());
  }
  CheckOp("FloorDiv", kInt64, LargePatterns(), /*nonzero_y=*/true);
  CheckOp("Atan2", kFloat32, LargePatterns());
}

TEST_CASE("CUDA integer Div and FloorMod wrap MIN / -1 and follow the divisor's sign") {
  if (testing::SkipWithoutTestDevice()) return;
  const Tensor x = from_vector<int32_t>({std::numeric_limits<int32_t>::min(), -7, 7, -7, 7, 0});
  const Tensor y = from_vector<int32_t>({-1, 2, -2, -2, 2, -3});
  for (const char* op : {"Div", "FloorMod"}) {
    INFO(op);
    testing::ExpectDeviceMatchesCpu(
        [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{Run(op, in)}; }, {x, y}, 0);
  }
}

TEST_CASE("CUDA integer Div by zero and Pow to a negative power are errors, as on the CPU") {
  if (testing::SkipWithoutTestDevice()) return;
  for (DType dtype : {kInt32, kInt64}) {
    const Tensor x = testing::OnTestDevice(testing::MakeTensor(dtype, {4}, {1, 2, 3, 4}));
    const Tensor zero = testing::OnTestDevice(testing::MakeTensor(dtype, {4}, {1, 2, 0, 4}));
    testing::ExpectError([&] { Run("Div", {x, zero}); }, {"division by zero", "flat index 2"});
    testing::ExpectError([&] { Run("FloorMod", {x, zero}); }, {"division by zero", "index 2"});
    const Tensor negative = testing::OnTestDevice(testing::MakeTensor(dtype, {4}, {1, 2, 3, -5}));
    testing::ExpectError(
        [&] {
          Run("Pow", {x, negative});
        },
        {"negative integer powers", "-5", "flat index 3"});
    // An empty output reads no divisor.
    const Tensor empty = testing::OnTestDevice(testing::MakeTensor(dtype, {0}, {}));
    const Tensor scalar_zero = testing::OnTestDevice(testing::MakeTensor(dtype, {}, {0}));
    CHECK(Run("Div", {empty, scalar_zero}).num_elements() == 0);
  }
}

TEST_CASE("CUDA comparisons and logical ops match the CPU") {
  if (testing::SkipWithoutTestDevice()) return;
  for (const char* op : {"Less", "LessEqual", "Greater", "GreaterEqual"}) {
    for (DType dtype : kArithmetic) CheckOp(op, dtype, Patterns());
  }
  for (const char* op : {"Equal", "NotEqual"}) {
    for (DType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool}) {
      CheckOp(op, dtype, Patterns());
    }
  }
  for (const char* op : {"LogicalAnd", "LogicalOr"}) CheckOp(op, kBool, Patterns());
  CheckOp("Less", kFloat32, LargePatterns());
  CheckOp("LogicalOr", kBool, LargePatterns());
}

TEST_CASE("CUDA Equal/NotEqual of shapes that do not broadcast, incompatible_shape_error=false") {
  if (testing::SkipWithoutTestDevice()) return;
  for (const char* op : {"Equal", "NotEqual"}) {
    INFO(op);
    const Tensor x = testing::MakeTensor(kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
    const Tensor y = testing::MakeTensor(kFloat32, {4}, {1, 2, 3, 4});
    testing::ExpectDeviceMatchesCpu(
        [&](const std::vector<Tensor>& in) {
          OpCall call(OpRegistry::Global().Find(op), TensorList(in.begin(), in.end()), OpSite());
          call.attrs[1] = false;  // incompatible_shape_error
          return std::vector<Tensor>{RunSingleOutputOp(call)};
        },
        {x, y}, 0);
  }
}

}  // namespace
}  // namespace duet
