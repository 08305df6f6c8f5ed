#include "ops/math/operators.h"

#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "ops/math/math_ops.h"

namespace duet {
namespace {

using BinaryOpFn = Tensor (*)(const Tensor&, const Tensor&, OpSite);

[[noreturn]] void ThrowOperatorError(absl::string_view symbol, absl::string_view message,
                                     const OpSite& site) {
  throw Error(absl::InvalidArgumentError(
      absl::StrCat("operator", symbol, ": ", message, " (at ", site.str(), ")")));
}

// True when the integer `v` is within the range of integer dtype `dtype`.
bool FitsInteger(int64_t v, DType dtype) {
  if (dtype == kInt64) return true;
  return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}

// True when the double `v` is a whole number within the range of integer dtype `dtype`.
bool FitsInteger(double v, DType dtype) {
  if (!std::isfinite(v) || v != std::trunc(v)) return false;
  const double limit = dtype == kInt64 ? 0x1p63 : 0x1p31;
  return v >= -limit && v < limit;
}

// x op y where a scalar side takes the tensor side's dtype. The site is the left operand's:
// its conversion captured the line where the expression starts.
Tensor ApplyBinary(const Operand& x, const Operand& y, absl::string_view symbol, BinaryOpFn fn) {
  const OpSite& site = x.site();
  if (x.is_tensor() && y.is_tensor()) return fn(x.tensor(), y.tensor(), site);
  const Operand& tensor_side = x.is_tensor() ? x : y;
  if (!tensor_side.is_tensor()) ThrowOperatorError(symbol, "needs at least one tensor", site);
  if (!tensor_side.tensor().defined()) {
    ThrowOperatorError(symbol, "the tensor operand is undefined", site);
  }
  const DType dtype = tensor_side.tensor().dtype();
  if (x.is_tensor()) return fn(x.tensor(), y.ScalarAs(dtype, symbol, site), site);
  return fn(x.ScalarAs(dtype, symbol, site), y.tensor(), site);
}

}  // namespace

Tensor Operand::ScalarAs(DType dtype, absl::string_view symbol, const OpSite& site) const {
  const std::string shown = integer_ ? absl::StrCat(int_value_) : absl::StrCat(float_value_);
  bool fits = true;
  if (dtype == kBool) {
    fits = integer_ && (int_value_ == 0 || int_value_ == 1);
  } else if (IsInteger(dtype)) {
    fits = integer_ ? FitsInteger(int_value_, dtype) : FitsInteger(float_value_, dtype);
  }
  if (!fits) {
    ThrowOperatorError(
        symbol,
        absl::StrCat("the scalar ", shown, " cannot be represented as ", DTypeName(dtype),
                     " (the tensor's dtype); cast the tensor or use another scalar"),
        site);
  }
  // int64 scalars go in exactly; scalar() takes a double, which holds every other case exactly.
  if (integer_ && dtype == kInt64) return from_vector(std::vector<int64_t>{int_value_}, Shape{});
  return scalar(integer_ ? static_cast<double>(int_value_) : float_value_, dtype);
}

Tensor operator+(const Operand& x, const Operand& y) { return ApplyBinary(x, y, "+", add); }
Tensor operator-(const Operand& x, const Operand& y) { return ApplyBinary(x, y, "-", subtract); }
Tensor operator*(const Operand& x, const Operand& y) { return ApplyBinary(x, y, "*", multiply); }
Tensor operator/(const Operand& x, const Operand& y) { return ApplyBinary(x, y, "/", divide); }
Tensor operator%(const Operand& x, const Operand& y) { return ApplyBinary(x, y, "%", floor_mod); }
Tensor operator==(const Operand& x, const Operand& y) { return ApplyBinary(x, y, "==", equal); }
Tensor operator!=(const Operand& x, const Operand& y) { return ApplyBinary(x, y, "!=", not_equal); }
Tensor operator<(const Operand& x, const Operand& y) { return ApplyBinary(x, y, "<", less); }
Tensor operator<=(const Operand& x, const Operand& y) {
  return ApplyBinary(x, y, "<=", less_equal);
}
Tensor operator>(const Operand& x, const Operand& y) { return ApplyBinary(x, y, ">", greater); }
Tensor operator>=(const Operand& x, const Operand& y) {
  return ApplyBinary(x, y, ">=", greater_equal);
}
Tensor operator&&(const Operand& x, const Operand& y) {
  return ApplyBinary(x, y, "&&", logical_and);
}
Tensor operator||(const Operand& x, const Operand& y) {
  return ApplyBinary(x, y, "||", logical_or);
}

Tensor operator-(const Operand& x) {
  if (!x.is_tensor()) ThrowOperatorError("-", "needs a tensor", x.site());
  return negative(x.tensor(), x.site());
}

Tensor operator!(const Operand& x) {
  if (!x.is_tensor()) ThrowOperatorError("!", "needs a tensor", x.site());
  return logical_not(x.tensor(), x.site());
}

}  // namespace duet
