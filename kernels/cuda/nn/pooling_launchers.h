// NHWC pooling launchers, compiled by nvcc: MaxPool, AvgPool and their gradients, with
// TensorFlow's semantics (kernels/cpu/nn/pooling_*.cc): windows clipped to the input (padding is
// never a candidate maximum and never counted by the average), the gradient of a max window going
// to its first maximum in row-major order. Gradients gather per input cell (no atomics), so
// results are deterministic. Asynchronous on `stream`; float32, float64 or bfloat16.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/cuda/nn/nn_launch_types.h"

namespace duet::cuda {

// Sizes of one pooling (kernels/common/pool_geometry.h), padding given by its leading side.
struct PoolDims {
  int64_t batch = 0, channels = 0;
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t window_h = 0, window_w = 0, stride_h = 1, stride_w = 1, pad_top = 0, pad_left = 0;
};

// y [batch, out_h, out_w, c] = max or mean of each window of x [batch, in_h, in_w, c].
cudaError_t LaunchMaxPool(NnType type, const PoolDims& d, const void* x, void* y,
                          cudaStream_t stream);
cudaError_t LaunchAvgPool(NnType type, const PoolDims& d, const void* x, void* y,
                          cudaStream_t stream);

// dx (x's shape) = the gradient of MaxPool(x) given dy (y's shape).
cudaError_t LaunchMaxPoolGrad(NnType type, const PoolDims& d, const void* x, const void* dy,
                              void* dx, cudaStream_t stream);
// dx (x's shape) = the gradient of AvgPool given dy.
cudaError_t LaunchAvgPoolGrad(NnType type, const PoolDims& d, const void* dy, void* dx,
                              cudaStream_t stream);
// out (y's shape) = g (x's shape) read at each window's first maximum of x (MaxPoolGradGrad).
cudaError_t LaunchMaxPoolGradGrad(NnType type, const PoolDims& d, const void* x, const void* g,
                                  void* out, cudaStream_t stream);

}  // namespace duet::cuda
