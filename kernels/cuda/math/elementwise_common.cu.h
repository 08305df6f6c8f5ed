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

#include "kernels/cuda/device_types.cu.h"
#include "kernels/cuda/math/elementwise_functors.cu.h"
#include "kernels/cuda/math/elementwise_launchers.h"

namespace duet::cuda {

// Storage and compute types: kernels/cuda/device_types.cu.h.

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
