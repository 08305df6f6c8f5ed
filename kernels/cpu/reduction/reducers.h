// The combine operations of the reduction kernels: an identity and a binary combine each.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/common/wrapping_arithmetic.h"

namespace duet {

// Each reducer combines values of its accumulator type Acc, which the reduction loops convert
// the elements to (reduce_loops.h); the result is converted back.
//
// Integer sums and products wrap on overflow, like TensorFlow's (wrapping_arithmetic.h).
template <typename T>
struct SumReducer {
  using Acc = T;
  static T Identity() { return T(0); }
  static T Combine(T a, T b) { return WrapAdd(a, b); }
};

// Mean's sum. int32 sums accumulate in int64, as TensorFlow's int32 Mean does (the mean of
// [2^31 - 2, 2^31 - 2] is 2^31 - 2, not the wrapped sum's -1); int64 sums wrap, as its int64
// Mean's do.
template <typename T>
struct MeanSumReducer {
  using Acc = std::conditional_t<std::is_same_v<T, int32_t>, int64_t, T>;
  static Acc Identity() { return Acc(0); }
  static Acc Combine(Acc a, Acc b) { return WrapAdd(a, b); }
};

// Note [float32 products in double]
// Unlike sums, products gain nothing from pairwise order: every one of the n - 1 roundings adds
// its relative error to the result whatever the order, and pairing factors near 1 even biases
// the roundings (their exact products sit on ties). TensorFlow's float32 Prod of 300k factors
// near 1 is off by about 1e-5 relative; accumulating in double leaves only the final rounding.
// (Cumprod keeps float32: its every partial product is an output.)
template <typename T>
struct ProdReducer {
  using Acc = std::conditional_t<std::is_same_v<T, float>, double, T>;
  static Acc Identity() { return Acc(1); }
  static Acc Combine(Acc a, Acc b) { return WrapMul(a, b); }
};

// Max and min propagate NaN (like NumPy): a NaN operand wins. `a != a` is the NaN test that the
// vectorizer turns into a compare, unlike std::isnan.
template <typename T>
struct MaxReducer {
  using Acc = T;
  static T Identity() {
    if constexpr (std::numeric_limits<T>::has_infinity) {
      return -std::numeric_limits<T>::infinity();
    } else {
      return std::numeric_limits<T>::lowest();
    }
  }
  static T Combine(T a, T b) { return (a > b || a != a) ? a : b; }
};

template <typename T>
struct MinReducer {
  using Acc = T;
  static T Identity() {
    if constexpr (std::numeric_limits<T>::has_infinity) {
      return std::numeric_limits<T>::infinity();
    } else {
      return std::numeric_limits<T>::max();
    }
  }
  static T Combine(T a, T b) { return (a < b || a != a) ? a : b; }
};

// All and Any run on bools stored as bytes (0 or 1; std::vector<bool> has no data()), so they
// are a bitwise and/or that vectorizes.
struct AllReducer {
  using Acc = uint8_t;
  static uint8_t Identity() { return 1; }
  static uint8_t Combine(uint8_t a, uint8_t b) { return a & b; }
};

struct AnyReducer {
  using Acc = uint8_t;
  static uint8_t Identity() { return 0; }
  static uint8_t Combine(uint8_t a, uint8_t b) { return a | b; }
};

}  // namespace duet
