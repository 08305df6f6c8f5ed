// Launchers of the stateless random kernels: the CPU's Philox4x32-10 stream and block-to-output
// mapping (kernels/cpu/random/), run on the GPU. Plain C-like interface for the nvcc side.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace duet::cuda {

// The seed's Philox stream, scrambled on the host (philox::StreamFromSeed): key and counter.
struct PhiloxStream {
  uint32_t key[2];
  uint32_t counter[4];
};

// Fills out[0, n) with uniform [0, 1) (or standard normal) values: block g of the stream gives
// elements [g * k, g * k + k) (k = 4 floats or 2 doubles), exactly as on the CPU.
cudaError_t LaunchStatelessUniform(const PhiloxStream& stream, float* out, int64_t n,
                                   cudaStream_t cuda_stream);
cudaError_t LaunchStatelessUniform(const PhiloxStream& stream, double* out, int64_t n,
                                   cudaStream_t cuda_stream);
cudaError_t LaunchStatelessNormal(const PhiloxStream& stream, float* out, int64_t n,
                                  cudaStream_t cuda_stream);
cudaError_t LaunchStatelessNormal(const PhiloxStream& stream, double* out, int64_t n,
                                  cudaStream_t cuda_stream);

// A scalar parameter (mean, stddev, minval, maxval) wherever it lives: read by the kernel from
// `device` when that is set, else `host`.
template <typename T>
struct ScalarArg {
  const T* device = nullptr;
  T host = T(0);
};

// The Scaled ops' affine map, two rounded operations (no FMA) as on the CPU:
// normal: out = out * stddev + mean; uniform: out = out * (maxval - minval) + minval.
cudaError_t LaunchNormalScale(float* out, int64_t n, ScalarArg<float> mean, ScalarArg<float> stddev,
                              cudaStream_t cuda_stream);
cudaError_t LaunchNormalScale(double* out, int64_t n, ScalarArg<double> mean,
                              ScalarArg<double> stddev, cudaStream_t cuda_stream);
cudaError_t LaunchUniformScale(float* out, int64_t n, ScalarArg<float> minval,
                               ScalarArg<float> maxval, cudaStream_t cuda_stream);
cudaError_t LaunchUniformScale(double* out, int64_t n, ScalarArg<double> minval,
                               ScalarArg<double> maxval, cudaStream_t cuda_stream);

}  // namespace duet::cuda
