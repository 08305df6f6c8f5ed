// Storage and compute types shared by the CUDA kernels of every family (included by .cu files
// only): 16-bit floats compute in float and round once, like the CPU's half kernels; bfloat16
// rounds exactly as core/half.h does, so GPU and CPU results match bit for bit.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

namespace duet::cuda {

// The type arithmetic runs in for storage type S.
template <typename S>
struct ComputeOf {
  using type = S;
};
template <>
struct ComputeOf<__half> {
  using type = float;
};
template <>
struct ComputeOf<__nv_bfloat16> {
  using type = float;
};
template <typename S>
using ComputeT = typename ComputeOf<S>::type;

template <typename S>
__device__ __forceinline__ ComputeT<S> ToCompute(S x) {
  if constexpr (std::is_same_v<S, __half>) {
    return __half2float(x);
  } else if constexpr (std::is_same_v<S, __nv_bfloat16>) {
    return __bfloat162float(x);
  } else {
    return x;
  }
}

// float to bfloat16 with core/half.h's rounding (nearest even; NaN stays a quiet NaN with its
// top payload bits), so GPU and CPU results match bit for bit.
__device__ __forceinline__ __nv_bfloat16 FloatToBFloat16(float f) {
  const unsigned u = __float_as_uint(f);
  const unsigned rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  const unsigned quiet_nan = (u >> 16) | 0x40u;
  return __ushort_as_bfloat16(
      static_cast<unsigned short>((u & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded));
}

// A compute-type value stored as S (16-bit floats round to nearest even once).
template <typename S, typename C>
__device__ __forceinline__ S FromCompute(C x) {
  if constexpr (std::is_same_v<S, __half>) {
    return __float2half_rn(x);
  } else if constexpr (std::is_same_v<S, __nv_bfloat16>) {
    return FloatToBFloat16(x);
  } else {
    return static_cast<S>(x);
  }
}

}  // namespace duet::cuda
