// Device helpers shared by the nn family's .cu files: short names for the storage/compute type
// conversions and grid-stride launch geometry.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/cuda/device_types.cu.h"

namespace duet::cuda::nn_detail {

// The compute type of storage type T, and the conversions (kernels/cuda/device_types.cu.h).
template <typename T>
using Compute = ComputeT<T>;
template <typename T>
__device__ __forceinline__ Compute<T> Load(const T& v) {
  return ToCompute(v);
}
template <typename T>
__device__ __forceinline__ T Store(Compute<T> v) {
  return FromCompute<T>(v);
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
