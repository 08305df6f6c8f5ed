// Integer sums, differences and products that wrap on overflow like TensorFlow's (two's
// complement), done in the unsigned type so that wrapping is defined behaviour rather than signed
// overflow; floating-point types get plain arithmetic. The CPU kernels and the CUDA .cu kernels
// share these (C++17, DUET_HOST_DEVICE).
#pragma once

#include <type_traits>

#include "kernels/common/host_device.h"

namespace duet {

template <typename T>
DUET_HOST_DEVICE T WrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

template <typename T>
DUET_HOST_DEVICE T WrapSub(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}

template <typename T>
DUET_HOST_DEVICE T WrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

}  // namespace duet
