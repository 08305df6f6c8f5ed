// Device helpers shared by the nn family's .cu files: conversions of the storage types to their
// compute type (half types compute in float32) and grid-stride launch geometry.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

namespace duet::cuda::nn_detail {

// The type arithmetic runs in: float for the 16-bit types, the type itself otherwise.
template <typename T>
struct ComputeOf {
  using type = T;
};
template <>
struct ComputeOf<__half> {
  using type = float;
};
template <>
struct ComputeOf<__nv_bfloat16> {
  using type = float;
};
template <typename T>
using Compute = typename ComputeOf<T>::type;

template <typename T>
__device__ __forceinline__ Compute<T> Load(const T& v) {
  return static_cast<Compute<T>>(v);
}
template <>
__device__ __forceinline__ float Load(const __half& v) {
  return __half2float(v);
}
template <>
__device__ __forceinline__ float Load(const __nv_bfloat16& v) {
  return __bfloat162float(v);
}

template <typename T>
__device__ __forceinline__ T Store(Compute<T> v) {
  return static_cast<T>(v);
}
template <>
__device__ __forceinline__ __half Store<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 Store<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

constexpr int kThreads = 256;

// Blocks for a grid-stride loop over n elements (bounded; the loop covers the rest).
inline int BlocksFor(int64_t n) {
  return static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, 65535 * 8));
}

#define DUET_GRID_STRIDE_LOOP(i, n)                                                      \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

}  // namespace duet::cuda::nn_detail
