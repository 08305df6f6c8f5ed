// Building blocks of the nvcc-built elementwise kernels (included by .cu files only): storage
// types and their compute types (16-bit floats compute in float and round once, like the CPU's
// half kernels), 16-byte packs for vectorized loads and stores, grid sizing, and the offsets of
// broadcast operands.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/cuda/math/elementwise_functors.cu.h"
#include "kernels/cuda/math/elementwise_launchers.h"

namespace duet::cuda {

// ---- Storage and compute types -----------------------------------------------------------------

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

// Calls fn(S{}) with the storage type of `type`; returns cudaErrorInvalidValue for an unknown one.
template <typename Fn>
cudaError_t VisitElementType(ElementType type, Fn&& fn) {
  switch (type) {
    case ElementType::kFloat32:
      return fn(float{});
    case ElementType::kFloat64:
      return fn(double{});
    case ElementType::kFloat16:
      return fn(__half{});
    case ElementType::kBFloat16:
      return fn(__nv_bfloat16{});
    case ElementType::kInt32:
      return fn(int32_t{});
    case ElementType::kInt64:
      return fn(int64_t{});
    case ElementType::kBool:
      return fn(bool{});
  }
  return cudaErrorInvalidValue;
}

// ---- Vectorized access -------------------------------------------------------------------------

// N elements loaded or stored as one aligned access (16 bytes for the inputs' packs).
template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

// Elements per 16-byte pack of T.
template <typename T>
inline constexpr int kPackSize = 16 / sizeof(T) > 0 ? static_cast<int>(16 / sizeof(T)) : 1;

// True when p may be accessed as packs of `bytes` bytes.
inline bool IsAligned(const void* p, size_t bytes) {
  return reinterpret_cast<uintptr_t>(p) % bytes == 0;
}

// ---- Launch geometry ---------------------------------------------------------------------------

inline constexpr int kThreads = 256;

// Blocks for `work` items (threads' worth) with grid-stride loops: enough to fill the GPU many
// times over, bounded so huge tensors loop instead of launching millions of blocks.
inline int BlocksFor(int64_t work) {
  constexpr int64_t kMaxBlocks = 65535;
  return static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>((work + kThreads - 1) / kThreads, kMaxBlocks)));
}

template <typename Index>
__device__ __forceinline__ Index GlobalThread() {
  return static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
}
template <typename Index>
__device__ __forceinline__ Index GridStride() {
  return static_cast<Index>(blockDim.x) * gridDim.x;
}

// ---- Broadcast offsets -------------------------------------------------------------------------

// The element offsets of output index i in the first K operands of a kStrided layout.
template <int K, typename Index>
__device__ __forceinline__ void StridedOffsets(const ElementwiseLayout& layout, Index i,
                                               Index (&offsets)[K]) {
#pragma unroll
  for (int k = 0; k < K; ++k) offsets[k] = 0;
#pragma unroll
  for (int d = kMaxBroadcastRank - 1; d >= 0; --d) {
    if (d < layout.rank) {
      const Index dim = static_cast<Index>(layout.dims[d]);
      const Index index = i % dim;
      i /= dim;
#pragma unroll
      for (int k = 0; k < K; ++k) offsets[k] += index * static_cast<Index>(layout.strides[k][d]);
    }
  }
}

// True when a kStrided layout's offsets all fit in 32 bits (operands never hold more elements
// than the output), so the per-element index arithmetic can use 32-bit division.
inline bool FitsInt32(const ElementwiseLayout& layout) { return layout.n <= INT32_MAX; }

}  // namespace duet::cuda
