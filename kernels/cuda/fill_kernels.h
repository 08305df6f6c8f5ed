// Device-side fills, the first CUDA kernels: compiled by nvcc only with --config=cuda.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace duet::cuda {

// Sets data[0, n) to `value` on `stream` (asynchronously). Returns the launch status.
cudaError_t LaunchFill(float* data, int64_t n, float value, cudaStream_t stream);
cudaError_t LaunchFill(double* data, int64_t n, double value, cudaStream_t stream);

}  // namespace duet::cuda
