#include "ops/math/operators.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/literal.h"
#include "ops/math/math_ops.h"

namespace duet {
namespace {

using BinaryOpFn = Tensor (*)(const Tensor&, const Tensor&, OpSite);

[[noreturn]] void ThrowOperatorError(absl::string_view symbol, absl::string_view message,
                                     const OpSite& site) {
  throw Error(absl::InvalidArgumentError(
      absl::StrCat("operator", symbol, ": ", message, " (at ", site.str(), ")")));
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
  absl::StatusOr<Tensor> converted =
      integer_ ? NumberAs(int_value_, dtype) : NumberAs(float_value_, dtype);
  if (!converted.ok()) {
    ThrowOperatorError(symbol,
                       absl::StrCat(converted.status().message(),
                                    " (the tensor's dtype); cast the tensor or use another scalar"),
                       site);
  }
  return *std::move(converted);
}

namespace {

// x = fn(x, y), at the line that wrote the compound assignment (y's).
Tensor& ApplyAssign(Tensor& x, const Operand& y, absl::string_view symbol, BinaryOpFn fn) {
  const OpSite& site = y.site();
  if (!x.defined()) ThrowOperatorError(symbol, "the tensor on the left is undefined", site);
  Tensor result =
      y.is_tensor() ? fn(x, y.tensor(), site) : fn(x, y.ScalarAs(x.dtype(), symbol, site), site);
  x = std::move(result);
  return x;
}

}  // namespace

Tensor& operator+=(Tensor& x, const Operand& y) { return ApplyAssign(x, y, "+=", add); }
Tensor& operator-=(Tensor& x, const Operand& y) { return ApplyAssign(x, y, "-=", subtract); }
Tensor& operator*=(Tensor& x, const Operand& y) { return ApplyAssign(x, y, "*=", multiply); }
Tensor& operator/=(Tensor& x, const Operand& y) { return ApplyAssign(x, y, "/=", divide); }

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
