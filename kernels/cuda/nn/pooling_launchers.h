// NHWC and NDHWC pooling launchers, compiled by nvcc: MaxPool, AvgPool, MaxPool3D, AvgPool3D and
// their gradients, with
// TensorFlow's semantics (kernels/cpu/nn/pooling_*.cc): windows clipped to the input (padding is
// never a candidate maximum and never counted by the average), the gradient of a max window going
// to its first maximum in row-major order. Gradients gather per input cell (no atomics), so
// results are deterministic. Asynchronous on `stream`; float32, float64 or bfloat16.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/cuda/nn/nn_launch_types.h"

namespace duet::cuda {

// Sizes of one pooling (kernels/common/pool_geometry.h) in its 3-D form (PoolGeometry::As3D: an
// NHWC pooling has depth 1), per spatial dim [depth, height, width]; padding given by its leading
// side.
struct PoolDims {
  int64_t batch = 0, channels = 0;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, window[3] = {1, 1, 1}, stride[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};
};

// y [batch, out_d, out_h, out_w, c] = max or mean of each window of x [batch, in_d, in_h, in_w, c].
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
