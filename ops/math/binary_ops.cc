// Binary arithmetic ops: AddV2, Sub, Mul, RealDiv, Div, FloorMod, Pow, Maximum, Minimum.
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

}  // namespace duet
