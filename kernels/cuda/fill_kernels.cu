#include <algorithm>

#include "kernels/cuda/fill_kernels.h"

namespace duet::cuda {
namespace {

// Grid-stride loop: any n works with a bounded grid.
template <typename T>
__global__ void FillKernel(T* data, int64_t n, T value) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    data[i] = value;
  }
}

template <typename T>
cudaError_t Launch(T* data, int64_t n, T value, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  constexpr int kThreads = 256;
  const int blocks = static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, 65535));
  FillKernel<<<blocks, kThreads, 0, stream>>>(data, n, value);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchFill(float* data, int64_t n, float value, cudaStream_t stream) {
  return Launch(data, n, value, stream);
}

cudaError_t LaunchFill(double* data, int64_t n, double value, cudaStream_t stream) {
  return Launch(data, n, value, stream);
}

}  // namespace duet::cuda
