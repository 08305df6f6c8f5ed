// Elementwise nn launchers (activations, ReluGrad, bias + activation), compiled by nvcc. Each
// runs asynchronously on `stream` and returns the launch status; n == 0 launches nothing. Half
// types compute in float32 and round once.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/cuda/nn/nn_launch_types.h"

namespace duet::cuda {

// y[i] = act(x[i]) for i in [0, n). x and y may alias. Integer types support kRelu and kRelu6
// only (cudaErrorInvalidValue otherwise).
cudaError_t LaunchActivation(NnActivation act, NnType type, const void* x, void* y, int64_t n,
                             float leakyrelu_alpha, cudaStream_t stream);

// out[i] = features[i] > 0 ? gradients[i] : 0.
cudaError_t LaunchReluGrad(NnType type, const void* gradients, const void* features, void* out,
                           int64_t n, cudaStream_t stream);

// y[i] = act(x[i] + bias[i % channels] + residual[i]) over n elements (NHWC: the channel is the
// last dim; no residual term when `residual` is null). x and y may alias (the fused epilogue runs
// in place on a product).
cudaError_t LaunchBiasActivation(NnActivation act, NnType type, const void* x, const void* bias,
                                 const void* residual, void* y, int64_t n, int64_t channels,
                                 float leakyrelu_alpha, cudaStream_t stream);

// out[0] = -alpha[0], out[1] = 1 in `type` (float32 or float64): the device-side alpha and beta of
// a gemm that subtracts alpha times a product from its destination.
cudaError_t LaunchNegatedScalarAndOne(NnType type, const void* alpha, void* out,
                                      cudaStream_t stream);

}  // namespace duet::cuda
