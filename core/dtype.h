// Element types of tensors and their C++ counterparts.
#pragma once

#include <concepts>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/half.h"

namespace duet {

// The element type of a tensor. Values are dense indices (used to index kernel tables), not
// TensorFlow's DataType numbers; see ToProtoDataType for those.
// The numeric dtypes come first, then kString (byte strings; Note [String tensors] in
// core/tensor.cc), so that loops over the numeric dtypes stay kNumNumericDTypes long. kResource (a
// handle to mutable state, a variable) and kVariant (an immutable value of another kind, a
// TensorList) are not element types: they come after the value dtypes, so that loops over the
// value dtypes stay kNumDTypes long. Note [Object dtypes] in core/dtype.cc.
enum class DType : uint8_t {
  kFloat32,
  kFloat64,
  kFloat16,
  kBFloat16,
  kInt32,
  kInt64,
  kBool,
  kUInt8,
  kString,
  kResource,
  kVariant
};

inline constexpr DType kFloat32 = DType::kFloat32;
inline constexpr DType kFloat64 = DType::kFloat64;
inline constexpr DType kFloat16 = DType::kFloat16;
inline constexpr DType kBFloat16 = DType::kBFloat16;
inline constexpr DType kInt32 = DType::kInt32;
inline constexpr DType kInt64 = DType::kInt64;
inline constexpr DType kBool = DType::kBool;
inline constexpr DType kUInt8 = DType::kUInt8;
inline constexpr DType kString = DType::kString;
inline constexpr DType kResource = DType::kResource;
inline constexpr DType kVariant = DType::kVariant;

// Number of numeric dtypes (every value dtype but kString), for loops that instantiate numeric
// code (VisitDType) per dtype.
inline constexpr int kNumNumericDTypes = 8;
// Number of value dtypes (the numeric ones and kString; all but kResource and kVariant).
inline constexpr int kNumDTypes = kNumNumericDTypes + 1;
// Number of dtypes, kResource and kVariant included, for tables indexed by any dtype.
inline constexpr int kNumAllDTypes = kNumDTypes + 2;

// "float32", "int64", ... (NumPy / TensorFlow spelling).
absl::string_view DTypeName(DType dtype);
// Bytes per element (for kString, sizeof(std::string): the element objects, not their bytes).
int DTypeSize(DType dtype);
bool IsFloating(DType dtype);  // float16, bfloat16, float32, float64
bool IsInteger(DType dtype);   // int32, int64, uint8
// Every value dtype but kString: the dtypes VisitDType takes.
inline bool IsNumeric(DType dtype) { return static_cast<int>(dtype) < kNumNumericDTypes; }
// kResource and kVariant: a tensor of it is 0-d and holds an object, not elements (Note [Object
// dtypes] in core/dtype.cc).
inline bool IsObjectDType(DType dtype) {
  return dtype == DType::kResource || dtype == DType::kVariant;
}
// Parses "float32", "float" , "int32", ... .
absl::StatusOr<DType> ParseDType(absl::string_view name);
// TensorFlow DataType enum number (DT_FLOAT = 1, ...), and back.
int ToProtoDataType(DType dtype);
absl::StatusOr<DType> FromProtoDataType(int proto_dtype);

// The C++ element types of the numeric dtypes: what VisitDType instantiates kernels with, and what
// nested initializer lists of numbers are made of.
template <typename T>
concept Element = std::same_as<T, float> || std::same_as<T, double> || std::same_as<T, int32_t> ||
    std::same_as<T, int64_t> || std::same_as<T, bool> || std::same_as<T, float16> ||
    std::same_as<T, bfloat16> || std::same_as<T, uint8_t>;
// Every C++ element type a tensor holds: the numeric ones and std::string (kString), for
// from_vector, to_vector and item.
template <typename T>
concept ValueElement = Element<T> || std::same_as<T, std::string>;

// The DType of a C++ element type: DTypeOf<float>() == kFloat32.
template <typename T>
constexpr DType DTypeOf();
template <>
constexpr DType DTypeOf<float>() {
  return kFloat32;
}
template <>
constexpr DType DTypeOf<double>() {
  return kFloat64;
}
template <>
constexpr DType DTypeOf<float16>() {
  return kFloat16;
}
template <>
constexpr DType DTypeOf<bfloat16>() {
  return kBFloat16;
}
template <>
constexpr DType DTypeOf<int32_t>() {
  return kInt32;
}
template <>
constexpr DType DTypeOf<int64_t>() {
  return kInt64;
}
template <>
constexpr DType DTypeOf<bool>() {
  return kBool;
}
template <>
constexpr DType DTypeOf<uint8_t>() {
  return kUInt8;
}
template <>
constexpr DType DTypeOf<std::string>() {
  return kString;
}

// Calls fn(T{}) with T the C++ type of `dtype`: the one switch every kernel uses to go from a
// runtime dtype to a template instantiation. Numeric dtypes only (IsNumeric): kString is left out
// so that no numeric kernel template is ever instantiated with std::string; string kernels are
// registered one by one (Note [String tensors] in core/tensor.cc).
template <typename Fn>
decltype(auto) VisitDType(DType dtype, Fn&& fn) {
  switch (dtype) {
    case kFloat32:
      return fn(float{});
    case kFloat64:
      return fn(double{});
    case kFloat16:
      return fn(float16{});
    case kBFloat16:
      return fn(bfloat16{});
    case kInt32:
      return fn(int32_t{});
    case kInt64:
      return fn(int64_t{});
    case kBool:
      return fn(bool{});
    case kUInt8:
      return fn(uint8_t{});
    case kString:
    case kResource:
    case kVariant:
      break;  // no numeric element type; kernels never dispatch on it
  }
  return fn(float{});
}

}  // namespace duet
