#include "core/constant.h"

#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/error.h"

namespace duet {
namespace {

// Appends the leaves of nested initializer lists to `out` and records the dims, checking that
// every row at one depth has the same length.
template <typename T>
void Flatten(const T& value, int, std::vector<int64_t>&, std::vector<T>& out) {
  out.push_back(value);
}

template <typename T, typename Leaf>
void Flatten(std::initializer_list<T> list, int depth, std::vector<int64_t>& dims,
             std::vector<Leaf>& out) {
  const int64_t n = static_cast<int64_t>(list.size());
  if (static_cast<int>(dims.size()) <= depth) {
    dims.push_back(n);
  } else if (dims[depth] != n) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("constant: ragged nested list: a row at depth ", depth, " has ", n,
                     " elements, expected ", dims[depth])));
  }
  for (const T& item : list) Flatten(item, depth + 1, dims, out);
}

template <typename Leaf, typename List>
Tensor FromNested(const List& list) {
  std::vector<int64_t> dims;
  std::vector<Leaf> values;
  Flatten(list, 0, dims, values);
  return from_vector(values, Shape(absl::MakeConstSpan(dims)));
}

template <typename T>
void FillAs(const Tensor& t, double value) {
  T v;
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    v = T(static_cast<float>(value));
  } else {
    v = static_cast<T>(value);
  }
  T* p = t.mutable_data<T>();
  std::fill(p, p + t.num_elements(), v);
}

constexpr int64_t kMaxRangeLength = int64_t{1} << 40;

// The checks of RangeLength that do not depend on how the length is computed.
template <typename T>
absl::Status CheckRangeDirection(T start, T limit, T delta) {
  if (delta == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("delta must not be 0 (start ", start, ", limit ", limit, ")"));
  }
  if (delta > 0 ? start > limit : start < limit) {
    return absl::InvalidArgumentError(
        absl::StrCat("requires start ", delta > 0 ? "<=" : ">=", " limit when delta is ",
                     delta > 0 ? "positive" : "negative", ", but start is ", start, ", limit ",
                     limit, " and delta ", delta));
  }
  return absl::OkStatus();
}

absl::Status TooLong(double start, double limit, double delta) {
  return absl::InvalidArgumentError(
      absl::StrCat("[", start, ", ", limit, ") in steps of ", delta, " has too many elements"));
}

// ceil(|(limit - start) / delta|) computed in T, as TensorFlow's kernel computes it: in float32,
// (0.3f - 0) / 0.1f rounds to 3 (3 elements), where double arithmetic on the same values gives
// 3.0000000745 (4 elements).
template <typename T>
absl::StatusOr<int64_t> FloatRangeLength(T start, T limit, T delta) {
  if (std::isnan(start) || std::isnan(limit) || std::isnan(delta)) {
    return absl::InvalidArgumentError(
        absl::StrCat("start ", start, ", limit ", limit, " and delta ", delta, " must not be NaN"));
  }
  DUET_RETURN_IF_ERROR(CheckRangeDirection(start, limit, delta));
  const T n = std::ceil(std::abs((limit - start) / delta));
  if (!std::isfinite(n) || n > static_cast<T>(kMaxRangeLength)) {
    return TooLong(start, limit, delta);
  }
  return static_cast<int64_t>(n);
}

}  // namespace

absl::StatusOr<int64_t> RangeLength(int64_t start, int64_t limit, int64_t delta) {
  DUET_RETURN_IF_ERROR(CheckRangeDirection(start, limit, delta));
  // In unsigned arithmetic |limit - start| and |delta| cannot overflow.
  const uint64_t span = start < limit ? static_cast<uint64_t>(limit) - static_cast<uint64_t>(start)
                                      : static_cast<uint64_t>(start) - static_cast<uint64_t>(limit);
  const uint64_t step =
      delta > 0 ? static_cast<uint64_t>(delta) : uint64_t{0} - static_cast<uint64_t>(delta);
  const uint64_t n = span / step + (span % step != 0 ? 1 : 0);
  if (n > static_cast<uint64_t>(kMaxRangeLength)) {
    return TooLong(static_cast<double>(start), static_cast<double>(limit),
                   static_cast<double>(delta));
  }
  return static_cast<int64_t>(n);
}

absl::StatusOr<int64_t> RangeLength(double start, double limit, double delta) {
  return FloatRangeLength(start, limit, delta);
}

absl::StatusOr<int64_t> RangeLength(float start, float limit, float delta) {
  return FloatRangeLength(start, limit, delta);
}

template <ValueElement T>
Tensor from_vector(const std::vector<T>& values, const Shape& shape) {
  if (shape.num_elements() != static_cast<int64_t>(values.size())) {
    throw Error(absl::InvalidArgumentError(absl::StrCat("from_vector: ", values.size(),
                                                        " values do not fill shape ", shape.str(),
                                                        " (", shape.num_elements(), " elements)")));
  }
  Tensor t = Tensor::Empty(DTypeOf<T>(), shape);
  if constexpr (std::is_same_v<T, bool>) {
    bool* p = t.mutable_data<bool>();
    for (size_t i = 0; i < values.size(); ++i) p[i] = values[i];  // vector<bool> is packed
  } else if constexpr (std::is_same_v<T, std::string>) {
    std::copy(values.begin(), values.end(), t.mutable_data<std::string>());  // objects, not bytes
  } else if (!values.empty()) {
    std::memcpy(t.raw_data(), values.data(), values.size() * sizeof(T));
  }
  return t;
}

template <Element T>
Tensor constant(std::initializer_list<std::initializer_list<T>> values) {
  return FromNested<T>(values);
}
template <Element T>
Tensor constant(std::initializer_list<std::initializer_list<std::initializer_list<T>>> values) {
  return FromNested<T>(values);
}
template <Element T>
Tensor constant(
    std::initializer_list<std::initializer_list<std::initializer_list<std::initializer_list<T>>>>
        values) {
  return FromNested<T>(values);
}

#define DUET_INSTANTIATE_CONSTANT(T)                                            \
  template Tensor from_vector<T>(const std::vector<T>&, const Shape&);          \
  template Tensor constant<T>(std::initializer_list<std::initializer_list<T>>); \
  template Tensor constant<T>(                                                  \
      std::initializer_list<std::initializer_list<std::initializer_list<T>>>);  \
  template Tensor constant<T>(                                                  \
      std::initializer_list<                                                    \
          std::initializer_list<std::initializer_list<std::initializer_list<T>>>>);
DUET_INSTANTIATE_CONSTANT(float)
DUET_INSTANTIATE_CONSTANT(double)
DUET_INSTANTIATE_CONSTANT(int32_t)
DUET_INSTANTIATE_CONSTANT(int64_t)
DUET_INSTANTIATE_CONSTANT(bool)
DUET_INSTANTIATE_CONSTANT(float16)
DUET_INSTANTIATE_CONSTANT(bfloat16)
DUET_INSTANTIATE_CONSTANT(uint8_t)
#undef DUET_INSTANTIATE_CONSTANT
template Tensor from_vector<std::string>(const std::vector<std::string>&, const Shape&);

Tensor constant(const std::string& value) {
  return from_vector(std::vector<std::string>{value}, Shape{});
}
Tensor constant(std::initializer_list<std::string> values) {
  return from_vector(std::vector<std::string>(values));
}
Tensor constant(std::initializer_list<std::initializer_list<const char*>> values) {
  std::vector<int64_t> dims;
  std::vector<const char*> literals;
  Flatten(values, 0, dims, literals);
  return from_vector(std::vector<std::string>(literals.begin(), literals.end()),
                     Shape(absl::MakeConstSpan(dims)));
}

Tensor fill(const Shape& shape, double value, DType dtype) {
  if (!IsNumeric(dtype)) {
    throw Error(absl::InvalidArgumentError(absl::StrCat(
        "fill: cannot fill a ", DTypeName(dtype), " tensor with the number ", value,
        dtype == kString ? " (make string tensors with from_vector<std::string>)" : "")));
  }
  Tensor t = Tensor::Empty(dtype, shape);
  VisitDType(dtype, [&](auto zero) { FillAs<decltype(zero)>(t, value); });
  return t;
}

Tensor zeros(const Shape& shape, DType dtype) {
  if (dtype == kString) return Tensor::Empty(kString, shape);  // empty strings
  return fill(shape, 0, dtype);
}
Tensor ones(const Shape& shape, DType dtype) { return fill(shape, 1, dtype); }
Tensor scalar(double value, DType dtype) { return fill(Shape{}, value, dtype); }

Tensor range(double start, double limit, double delta, std::optional<DType> dtype) {
  if (delta == 0) throw Error(absl::InvalidArgumentError("range: delta must not be 0"));
  const bool integral =
      start == std::floor(start) && limit == std::floor(limit) && delta == std::floor(delta);
  const DType out = dtype.value_or(integral ? kInt32 : kFloat32);
  if (!IsNumeric(out)) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("range: dtype ", DTypeName(out), " is not a number type")));
  }
  const double count = std::ceil((limit - start) / delta);
  if (!std::isfinite(count) || count > static_cast<double>(int64_t{1} << 40)) {
    throw Error(absl::InvalidArgumentError(absl::StrCat(
        "range: [", start, ", ", limit, ") in steps of ", delta, " has too many elements")));
  }
  const int64_t n = std::max<int64_t>(0, static_cast<int64_t>(count));
  Tensor t = Tensor::Empty(out, Shape{n});
  VisitDType(out, [&](auto zero) {
    using T = decltype(zero);
    T* p = t.mutable_data<T>();
    for (int64_t i = 0; i < n; ++i) {
      const double v = start + static_cast<double>(i) * delta;
      if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
        p[i] = T(static_cast<float>(v));
      } else {
        p[i] = static_cast<T>(v);
      }
    }
  });
  return t;
}

}  // namespace duet
