// FusedBatchNormV3's launchers, compiled by nvcc, over x viewed as [rows, channels] (NHWC). x is
// float32, float64 or bfloat16; the statistics (U) are float64 for float64 x, else float32.
// Asynchronous on `stream`.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/cuda/nn/nn_launch_types.h"

namespace duet::cuda {

// mean[c] and the biased variance[c] of x's columns (two passes, double sums), in U. rows > 0.
cudaError_t LaunchBatchNormStatistics(NnType x_type, const void* x, int64_t rows, int64_t channels,
                                      void* mean, void* variance, cudaStream_t stream);

// y = (x - mean) * scale / sqrt(variance + epsilon) + offset, per channel.
cudaError_t LaunchBatchNormApply(NnType x_type, const void* x, void* y, int64_t rows,
                                 int64_t channels, float epsilon, const void* scale,
                                 const void* offset, const void* mean, const void* variance,
                                 cudaStream_t stream);

// From the statistics y was normalized with (mean, variance: reserve spaces 1 and 2):
// inv_std = 1 / sqrt(variance + epsilon); in training batch_mean/batch_variance = the statistics
// (variance Bessel-corrected by rows / (rows - 1)) blended with old_* by `factor` when factor !=
// 1; in inference copies. As kernels/cpu/nn/batch_norm_kernels.cc's FinishStatistics.
cudaError_t LaunchBatchNormFinish(NnType u_type, int64_t rows, int64_t channels, float epsilon,
                                  float factor, bool training, const void* mean,
                                  const void* variance, const void* old_mean,
                                  const void* old_variance, void* batch_mean, void* batch_variance,
                                  void* inv_std, cudaStream_t stream);

// data[0, n) = NaN in U (float32 or float64).
cudaError_t LaunchFillNan(NnType u_type, void* data, int64_t n, cudaStream_t stream);

}  // namespace duet::cuda
