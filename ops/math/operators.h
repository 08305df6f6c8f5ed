// C++ operators on tensors: + - * / % and unary -, == != < <= > >= (bool results), && || ! (bool
// tensors), and the compound assignments += -= *= /= (rebinding). Either side may be an arithmetic
// C++ scalar, which becomes a 0-d tensor of the other operand's dtype, like a Python scalar in
// TensorFlow: `x + 1`, `2.5 * x`, `x == true`.
#pragma once

#include <concepts>
#include <cstdint>
#include <source_location>
#include <type_traits>

#include "absl/strings/string_view.h"
#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet {

// One operand of an operator: a tensor, anything that converts to one (e.g. a variable), or an
// arithmetic scalar. Operators cannot take an OpSite, so the implicit conversion to Operand
// records the caller's source line instead (its default argument is evaluated at the call site).
// Only ever a temporary bound to an operator's parameter, hence not copyable.
class Operand {
 public:
  Operand(const Tensor& tensor, std::source_location loc = std::source_location::current())
      : tensor_(&tensor), site_(loc) {}

  template <typename T>
  requires(!std::is_arithmetic_v<T> && !std::same_as<T, Tensor> &&
           std::convertible_to<const T&, Tensor>)
      Operand(const T& value, std::source_location loc = std::source_location::current())
      : owned_(value), tensor_(&owned_), site_(loc) {}

  template <typename S>
  requires std::is_arithmetic_v<S> Operand(
      S value, std::source_location loc = std::source_location::current())
      : site_(loc) {
    if constexpr (std::is_integral_v<S>) {
      if (std::is_signed_v<S> || static_cast<uint64_t>(value) <= uint64_t{INT64_MAX}) {
        integer_ = true;
        int_value_ = static_cast<int64_t>(value);
        return;
      }
    }
    float_value_ = static_cast<double>(value);
  }

  Operand(const Operand&) = delete;
  Operand& operator=(const Operand&) = delete;

  // True for tensor operands, false for scalars.
  bool is_tensor() const { return tensor_ != nullptr; }
  // The tensor; only for tensor operands.
  const Tensor& tensor() const { return *tensor_; }
  // Where the operator was written.
  const OpSite& site() const { return site_; }
  // A scalar operand as a 0-d tensor of `dtype`. Throws Error naming operator `symbol` and `site`
  // when the value would change (1.5 as int32, 3 as bool, 2^40 as int32).
  Tensor ScalarAs(DType dtype, absl::string_view symbol, const OpSite& site) const;

 private:
  Tensor owned_;  // for operands converted to a tensor
  const Tensor* tensor_ = nullptr;
  bool integer_ = false;
  int64_t int_value_ = 0;
  double float_value_ = 0;
  OpSite site_;
};

// x + y (add).
Tensor operator+(const Operand& x, const Operand& y);
// x - y (subtract).
Tensor operator-(const Operand& x, const Operand& y);
// x * y (multiply).
Tensor operator*(const Operand& x, const Operand& y);
// x / y (divide: true division for floats, truncating for integers).
Tensor operator/(const Operand& x, const Operand& y);
// x % y (floor_mod: the result has the sign of y, like Python).
Tensor operator%(const Operand& x, const Operand& y);
// -x (negative).
Tensor operator-(const Operand& x);
// x == y, a bool tensor (equal).
Tensor operator==(const Operand& x, const Operand& y);
// x != y, a bool tensor (not_equal).
Tensor operator!=(const Operand& x, const Operand& y);
// x < y, a bool tensor (less).
Tensor operator<(const Operand& x, const Operand& y);
// x <= y, a bool tensor (less_equal).
Tensor operator<=(const Operand& x, const Operand& y);
// x > y, a bool tensor (greater).
Tensor operator>(const Operand& x, const Operand& y);
// x >= y, a bool tensor (greater_equal).
Tensor operator>=(const Operand& x, const Operand& y);
// Elementwise AND of bool tensors (logical_and); both sides are always evaluated.
Tensor operator&&(const Operand& x, const Operand& y);
// Elementwise OR of bool tensors (logical_or); both sides are always evaluated.
Tensor operator||(const Operand& x, const Operand& y);
// Elementwise NOT of a bool tensor (logical_not).
Tensor operator!(const Operand& x);

// x += y, x -= y, x *= y, x /= y: x = x + y and so on, rebinding x to the result, as Python does
// (other handles to the old tensor keep its value; in a graph, x names the new node). A scalar
// on the right adopts x's dtype, as with the binary operators. A Variable is not a Tensor
// lvalue: update it with assign_add / assign_sub.
Tensor& operator+=(Tensor& x, const Operand& y);
Tensor& operator-=(Tensor& x, const Operand& y);
Tensor& operator*=(Tensor& x, const Operand& y);
Tensor& operator/=(Tensor& x, const Operand& y);

}  // namespace duet
