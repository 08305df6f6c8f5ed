// The combine operations of the reduction kernels: an identity and a binary combine each.
#pragma once

#include <limits>
#include <type_traits>

namespace duet {

// Integer sums and products wrap on overflow, like TensorFlow's; the arithmetic goes through the
// unsigned type so that wrapping is defined behaviour rather than signed overflow.
template <typename T>
T WrappingAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

template <typename T>
T WrappingMul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

template <typename T>
struct SumReducer {
  static T Identity() { return T(0); }
  static T Combine(T a, T b) { return WrappingAdd(a, b); }
};

template <typename T>
struct ProdReducer {
  static T Identity() { return T(1); }
  static T Combine(T a, T b) { return WrappingMul(a, b); }
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

}  // namespace duet
