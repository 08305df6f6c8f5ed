// Converting one element between dtypes with TensorFlow's rules: float -> int truncates toward
// zero, x -> bool is x != 0, bool -> x is 0 or 1, 16-bit floats go through float32. Conversions
// that C++ leaves undefined are defined here: NaN -> int is 0 and out-of-range values saturate.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/half.h"

namespace duet {

// True for float16 and bfloat16, the storage-only types that convert through float.
template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

// Float to integer, truncating toward zero; NaN gives 0 and out-of-range values saturate (so a
// float cast to uint8 clamps to [0, 255]; TensorFlow leaves that case unspecified). Selects
// rather than early returns keep loops over it vectorizable; only in-range values are converted
// because converting an out-of-range float is undefined behaviour.
template <typename I, typename F>
I FloatToInt(F x) {
  // 2^digits is the first value past the maximum, exactly representable in F.
  constexpr F kLimit = static_cast<F>(uint64_t{1} << std::numeric_limits<I>::digits);
  // Unsigned types take (-1, 2^digits): -0.5 truncates to 0, -1 is out of range.
  constexpr F kLow = std::is_signed_v<I> ? -kLimit : F{-1};
  const bool in_range = x > kLow && x < kLimit;  // false for NaN
  I value = static_cast<I>(in_range ? x : F{0});
  value = x >= kLimit ? std::numeric_limits<I>::max() : value;
  value = x <= kLow ? std::numeric_limits<I>::min() : value;
  return value;
}

// x converted to D (see the file comment).
template <typename D, typename S>
D CastValue(S x) {
  if constexpr (std::is_same_v<S, D>) {
    return x;
  } else if constexpr (kIsHalf<S>) {
    return CastValue<D>(static_cast<float>(x));
  } else if constexpr (std::is_same_v<D, bool>) {
    return x != S{0};
  } else if constexpr (kIsHalf<D>) {
    return D(static_cast<float>(x));
  } else if constexpr (std::is_integral_v<D> && std::is_floating_point_v<S>) {
    return FloatToInt<D>(x);
  } else {
    return static_cast<D>(x);
  }
}

}  // namespace duet
