// Making tensors from C++ values: constant, from_vector, zeros, ones, fill, range.
#pragma once

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/tensor.h"

namespace duet {

// A tensor of `shape` holding a copy of `values` (row-major); the dtype is T's (std::string makes
// a kString tensor). Throws Error when the element count does not match the shape.
template <ValueElement T>
Tensor from_vector(const std::vector<T>& values, const Shape& shape);
// A 1-D tensor holding a copy of `values`.
template <ValueElement T>
Tensor from_vector(const std::vector<T>& values) {
  return from_vector(values, Shape{static_cast<int64_t>(values.size())});
}

// constant(3.f), constant({1, 2}), constant({{1.f, 2.f}, {3.f, 4.f}}), ... up to rank 4. The dtype
// follows the literal: float -> float32, double -> float64, int -> int32, int64_t -> int64.
// Ragged nested lists throw Error.
template <Element T>
Tensor constant(T value) {
  return from_vector(std::vector<T>{value}, Shape{});
}
template <Element T>
Tensor constant(std::initializer_list<T> values) {
  return from_vector(std::vector<T>(values));
}
template <Element T>
Tensor constant(std::initializer_list<std::initializer_list<T>> values);
template <Element T>
Tensor constant(std::initializer_list<std::initializer_list<std::initializer_list<T>>> values);
template <Element T>
Tensor constant(
    std::initializer_list<std::initializer_list<std::initializer_list<std::initializer_list<T>>>>
        values);
template <ValueElement T>
Tensor constant(const std::vector<T>& values, const Shape& shape) {
  return from_vector(values, shape);
}

// String tensors (kString): constant("abc") is a scalar, constant({"a", "b"}) a vector,
// constant({{"a", "b"}, {"c", "d"}}) a matrix (of literals: a nested list of std::string would be
// ambiguous, since std::string{"a", "b"} is a constructor call). The bytes are copied as they are
// (any bytes, NULs included, when given as std::string).
Tensor constant(const std::string& value);
inline Tensor constant(const char* value) { return constant(std::string(value)); }
Tensor constant(std::initializer_list<std::string> values);
Tensor constant(std::initializer_list<std::initializer_list<const char*>> values);

// A tensor of `shape` and `dtype` with every element equal to `value` (converted to dtype). A
// number cannot fill a kString tensor (Error); zeros(shape, kString) holds empty strings, as
// tf.zeros does.
Tensor fill(const Shape& shape, double value, DType dtype = kFloat32);
// fill({2, 3}, 0.5): a braced list is the shape and the value a number (not a literal tensor for
// the Fill op's overloads in ops/array/array_ops.h).
inline Tensor fill(std::initializer_list<int64_t> shape, double value, DType dtype = kFloat32) {
  return fill(Shape(shape), value, dtype);
}
Tensor zeros(const Shape& shape, DType dtype = kFloat32);
Tensor ones(const Shape& shape, DType dtype = kFloat32);
// A scalar of `dtype` holding `value`: how `x + 1` turns its 1 into a tensor of x's dtype.
Tensor scalar(double value, DType dtype);
// [start, start + delta, ...) up to but excluding `limit`, like tf.range / numpy.arange. The dtype
// defaults to int32 when start, limit and delta are integers and float32 otherwise.
Tensor range(double start, double limit, double delta = 1, std::optional<DType> dtype = {});
inline Tensor range(int64_t limit) { return range(0, static_cast<double>(limit)); }

// The length of TensorFlow's Range(start, limit, delta), shared by the op's shape function and
// kernels: ceil(|limit - start| / |delta|), computed in the operands' own type as TensorFlow does
// (float32 Range(0, 0.3, 0.1) has 3 elements, double arithmetic would give 4). InvalidArgument,
// naming the values, when delta is 0, points away from limit (unlike range() above, which gives
// an empty tensor), or the length is not finite or exceeds 2^40.
absl::StatusOr<int64_t> RangeLength(int64_t start, int64_t limit, int64_t delta);
absl::StatusOr<int64_t> RangeLength(double start, double limit, double delta);
absl::StatusOr<int64_t> RangeLength(float start, float limit, float delta);

}  // namespace duet
