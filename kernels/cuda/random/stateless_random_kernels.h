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

// out[i] = out[i] * scale + shift, two rounded operations (no FMA), as the CPU does. `scale` is
// *scale_hi - *scale_lo when `scale_lo` is not null (UniformScaled's maxval - minval), else
// *scale_hi; `shift` is *shift. All three are device pointers to one element.
cudaError_t LaunchScaleAndShift(float* out, int64_t n, const float* scale_hi, const float* scale_lo,
                                const float* shift, cudaStream_t cuda_stream);
cudaError_t LaunchScaleAndShift(double* out, int64_t n, const double* scale_hi,
                                const double* scale_lo, const double* shift,
                                cudaStream_t cuda_stream);

}  // namespace duet::cuda
