// Binary arithmetic ops: AddV2, Sub, Mul, RealDiv, Div, FloorDiv, TruncateDiv, FloorMod, Pow,
// Maximum, Minimum, SquaredDifference, Atan2.
#include "ops/math/elementwise_op_def.h"
#include "ops/math/math_ops.h"

namespace duet {
namespace {

const OpDef* const kAddV2 =
    RegisterBinaryOp("AddV2", kArithmeticTypes, "x + y, elementwise with NumPy broadcasting.",
                     BinaryOpKind::kCommutative);
const OpDef* const kSub =
    RegisterBinaryOp("Sub", kArithmeticTypes, "x - y, elementwise with NumPy broadcasting.",
                     BinaryOpKind::kNonCommutative);
const OpDef* const kMul =
    RegisterBinaryOp("Mul", kArithmeticTypes, "x * y, elementwise with NumPy broadcasting.",
                     BinaryOpKind::kCommutative);
const OpDef* const kRealDiv = RegisterBinaryOp(
    "RealDiv", kMathFloatTypes, "x / y for floating-point types, with NumPy broadcasting.",
    BinaryOpKind::kNonCommutative);
const OpDef* const kDiv = RegisterBinaryOp(
    "Div", kArithmeticTypes,
    "x / y with NumPy broadcasting; integers truncate toward zero and reject a zero divisor.",
    BinaryOpKind::kNonCommutative);
const OpDef* const kFloorDiv = RegisterBinaryOp(
    "FloorDiv", kArithmeticTypes,
    "floor(x / y) with NumPy broadcasting: integers round toward -inf (Python's //), floats take "
    "the floor of the rounded quotient as TensorFlow (-1e-3 // inf is -0.0, Python's is -1); an "
    "integer zero divisor is an error.",
    BinaryOpKind::kNonCommutative, "x", "y",
    "float16 and bfloat16 quotients are rounded to float32, not to the 16-bit type, before the "
    "floor, and the floor is rounded once: -2.5 // 1e-3 is -2500 (TensorFlow: -2498), and a "
    "quotient too small for the 16-bit type floors to -1 (TensorFlow: -0.0).");
const OpDef* const kTruncateDiv = RegisterBinaryOp(
    "TruncateDiv", kArithmeticTypes,
    "x / y rounded toward zero, with NumPy broadcasting; an integer zero divisor is an error.",
    BinaryOpKind::kNonCommutative);
const OpDef* const kFloorMod = RegisterBinaryOp(
    "FloorMod", kArithmeticTypes,
    "Remainder of floor division (sign of y, like Python's %), with NumPy broadcasting.",
    BinaryOpKind::kNonCommutative);
const OpDef* const kPow =
    RegisterBinaryOp("Pow", kArithmeticTypes, "x ** y, elementwise with NumPy broadcasting.",
                     BinaryOpKind::kNonCommutative);
const OpDef* const kMaximum = RegisterBinaryOp(
    "Maximum", kArithmeticTypes, "max(x, y) elementwise (NaN propagates), with broadcasting.",
    BinaryOpKind::kCommutative);
const OpDef* const kMinimum = RegisterBinaryOp(
    "Minimum", kArithmeticTypes, "min(x, y) elementwise (NaN propagates), with broadcasting.",
    BinaryOpKind::kCommutative);
const OpDef* const kSquaredDifference = RegisterBinaryOp(
    "SquaredDifference", kArithmeticTypes,
    "(x - y) * (x - y), elementwise with NumPy broadcasting.", BinaryOpKind::kCommutative);
const OpDef* const kAtan2 = RegisterBinaryOp(
    "Atan2", kMathFloatTypes,
    "The angle of the point (x, y) in radians, in [-pi, pi], elementwise with NumPy broadcasting.",
    BinaryOpKind::kNonCommutative, "y", "x");

}  // namespace

Tensor add(const Tensor& x, const Tensor& y, OpSite site) {
  return CallBinaryOp(kAddV2, x, y, site);
}

Tensor subtract(const Tensor& x, const Tensor& y, OpSite site) {
  return CallBinaryOp(kSub, x, y, site);
}

Tensor multiply(const Tensor& x, const Tensor& y, OpSite site) {
  return CallBinaryOp(kMul, x, y, site);
}

Tensor divide(const Tensor& x, const Tensor& y, OpSite site) {
  // TensorFlow's RealDiv only takes floats; integer division is its truncating Div.
  const bool integer = x.defined() && IsInteger(x.dtype());
  return CallBinaryOp(integer ? kDiv : kRealDiv, x, y, site);
}

Tensor floor_div(const Tensor& x, const Tensor& y, OpSite site) {
  return CallBinaryOp(kFloorDiv, x, y, site);
}

Tensor truncate_div(const Tensor& x, const Tensor& y, OpSite site) {
  return CallBinaryOp(kTruncateDiv, x, y, site);
}

Tensor floor_mod(const Tensor& x, const Tensor& y, OpSite site) {
  return CallBinaryOp(kFloorMod, x, y, site);
}

Tensor pow(const Tensor& x, const Tensor& y, OpSite site) { return CallBinaryOp(kPow, x, y, site); }

Tensor maximum(const Tensor& x, const Tensor& y, OpSite site) {
  return CallBinaryOp(kMaximum, x, y, site);
}

Tensor minimum(const Tensor& x, const Tensor& y, OpSite site) {
  return CallBinaryOp(kMinimum, x, y, site);
}

Tensor squared_difference(const Tensor& x, const Tensor& y, OpSite site) {
  return CallBinaryOp(kSquaredDifference, x, y, site);
}

Tensor atan2(const Tensor& y, const Tensor& x, OpSite site) {
  return CallBinaryOp(kAtan2, y, x, site);
}

}  // namespace duet
