// The combine operations of the reduction kernels: an identity and a binary combine each.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/common/wrapping_arithmetic.h"

namespace duet {

// Integer sums and products wrap on overflow, like TensorFlow's (wrapping_arithmetic.h).
template <typename T>
struct SumReducer {
  static T Identity() { return T(0); }
  static T Combine(T a, T b) { return WrapAdd(a, b); }
};

template <typename T>
struct ProdReducer {
  static T Identity() { return T(1); }
  static T Combine(T a, T b) { return WrapMul(a, b); }
};

// Max and min propagate NaN (like NumPy): a NaN operand wins. `a != a` is the NaN test that the
// vectorizer turns into a compare, unlike std::isnan.
template <typename T>
struct MaxReducer {
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
  static uint8_t Identity() { return 1; }
  static uint8_t Combine(uint8_t a, uint8_t b) { return a & b; }
};

struct AnyReducer {
  static uint8_t Identity() { return 0; }
  static uint8_t Combine(uint8_t a, uint8_t b) { return a | b; }
};

}  // namespace duet
