#include "core/literal.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/constant.h"

namespace duet {

// Note [Literal tensors]: TensorFlow converts a Python number to the dtype of the tensors it
// meets (tf.add(x, 1) with x float64 adds a float64 1); duet does the same for C++ literals.
// Tensor's literal constructors make an ordinary tensor with the literal's own dtype (int32 for
// 1, float32 for 1.f, float64 for 1.0) and mark it `literal`. When an op binds its inputs
// (BindAttrs in ops/op_call.cc), the non-literal inputs fix each type attr and the literals are
// converted to it; a literal that would change value (1.5 as int32) is an error, not a rounding.
// An op whose inputs are all literals computes in the literals' dtype. Op outputs are never
// literals, so the mark does not spread.

namespace {

Tensor MarkLiteral(Tensor t) {
  t.impl()->literal = true;
  return t;
}

// The literal's element i, exactly, as an integer (bool and integer literals) or a double.
struct Value {
  bool integer;
  int64_t i;
  double d;

  std::string str() const { return integer ? absl::StrCat(i) : absl::StrCat(d); }
};

Value ElementOf(const Tensor& t, int64_t i) {
  return VisitDType(t.dtype(), [&](auto zero) -> Value {
    using T = decltype(zero);
    const T v = t.data<T>()[i];
    if constexpr (std::is_integral_v<T>) {
      return {true, static_cast<int64_t>(v), 0};
    } else if constexpr (std::is_same_v<T, double>) {
      return {false, 0, v};
    } else {
      return {false, 0, static_cast<double>(static_cast<float>(v))};
    }
  });
}

bool Fits(const Value& v, DType dtype) {
  if (dtype == kBool) return v.integer && (v.i == 0 || v.i == 1);
  if (!IsInteger(dtype)) return true;
  if (dtype == kUInt8) {
    if (v.integer) return v.i >= 0 && v.i <= 255;
    return std::isfinite(v.d) && v.d == std::trunc(v.d) && v.d >= 0 && v.d <= 255;
  }
  if (v.integer) {
    return dtype == kInt64 || (v.i >= INT32_MIN && v.i <= INT32_MAX);
  }
  if (!std::isfinite(v.d) || v.d != std::trunc(v.d)) return false;
  const double limit = dtype == kInt64 ? 0x1p63 : 0x1p31;
  return v.d >= -limit && v.d < limit;
}

template <typename T>
T Convert(const Value& v) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return T(static_cast<float>(v.integer ? static_cast<double>(v.i) : v.d));
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(v.integer ? v.i : static_cast<int64_t>(v.d));
  } else {
    return static_cast<T>(v.integer ? static_cast<double>(v.i) : v.d);
  }
}

// The values value_at(i), one per element of `shape`, as a tensor of `dtype`, or why not.
template <typename ValueAt>
absl::StatusOr<Tensor> ConvertValues(ValueAt value_at, const Shape& shape, DType dtype) {
  if (!IsNumeric(dtype)) {
    return absl::InvalidArgumentError(
        absl::StrCat("a literal cannot stand for a ", DTypeName(dtype), " tensor"));
  }
  DUET_ASSIGN_OR_RETURN(Tensor out, Tensor::TryEmpty(dtype, shape));
  const int64_t n = shape.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    const Value v = value_at(i);
    if (!Fits(v, dtype)) {
      const std::string which = shape.rank() == 0 ? "" : absl::StrCat("'s element ", i, ",");
      return absl::InvalidArgumentError(absl::StrCat(
          "the literal", which, " ", v.str(), " cannot be represented as ", DTypeName(dtype)));
    }
    VisitDType(dtype, [&](auto zero) {
      using T = decltype(zero);
      out.mutable_data<T>()[i] = Convert<T>(v);
    });
  }
  return out;
}

}  // namespace

absl::StatusOr<Tensor> LiteralAs(const Tensor& literal, DType dtype) {
  if (literal.dtype() == dtype) return literal;
  return ConvertValues([&](int64_t i) { return ElementOf(literal, i); }, literal.shape(), dtype);
}

absl::StatusOr<Tensor> NumberAs(int64_t value, DType dtype) {
  return ConvertValues([&](int64_t) { return Value{true, value, 0}; }, Shape{}, dtype);
}

absl::StatusOr<Tensor> NumberAs(double value, DType dtype) {
  return ConvertValues([&](int64_t) { return Value{false, 0, value}; }, Shape{}, dtype);
}

Tensor Tensor::Literal(bool value) { return MarkLiteral(constant(value)); }
Tensor Tensor::Literal(int32_t value) { return MarkLiteral(constant(value)); }
Tensor Tensor::Literal(int64_t value) { return MarkLiteral(constant(value)); }
Tensor Tensor::Literal(float value) { return MarkLiteral(constant(value)); }
Tensor Tensor::Literal(double value) { return MarkLiteral(constant(value)); }

template <Element T>
Tensor::Tensor(std::initializer_list<T> values) : Tensor(MarkLiteral(constant(values))) {}
template <Element T>
Tensor::Tensor(std::initializer_list<std::initializer_list<T>> values)
    : Tensor(MarkLiteral(constant(values))) {}
template <Element T>
Tensor::Tensor(std::initializer_list<std::initializer_list<std::initializer_list<T>>> values)
    : Tensor(MarkLiteral(constant(values))) {}
template <Element T>
Tensor::Tensor(
    std::initializer_list<std::initializer_list<std::initializer_list<std::initializer_list<T>>>>
        values)
    : Tensor(MarkLiteral(constant(values))) {}

#define DUET_INSTANTIATE_LITERAL(T)                                                                \
  template Tensor::Tensor(std::initializer_list<T>);                                               \
  template Tensor::Tensor(std::initializer_list<std::initializer_list<T>>);                        \
  template Tensor::Tensor(std::initializer_list<std::initializer_list<std::initializer_list<T>>>); \
  template Tensor::Tensor(                                                                         \
      std::initializer_list<                                                                       \
          std::initializer_list<std::initializer_list<std::initializer_list<T>>>>);
DUET_INSTANTIATE_LITERAL(float)
DUET_INSTANTIATE_LITERAL(double)
DUET_INSTANTIATE_LITERAL(int32_t)
DUET_INSTANTIATE_LITERAL(int64_t)
DUET_INSTANTIATE_LITERAL(bool)
DUET_INSTANTIATE_LITERAL(float16)
DUET_INSTANTIATE_LITERAL(bfloat16)
DUET_INSTANTIATE_LITERAL(uint8_t)
#undef DUET_INSTANTIATE_LITERAL

}  // namespace duet
