#include <cuda_bf16.h>

#include <cmath>

#include "kernels/cuda/nn/batch_norm_launchers.h"
#include "kernels/cuda/nn/nn_device_math.cuh"

namespace duet::cuda {
namespace {

using nn_detail::BlocksFor;
using nn_detail::kThreads;
using nn_detail::Load;
using nn_detail::Store;

// Statistics blocks: 32 channels (coalesced along a row) x kLanes rows.
constexpr int kChannelsPerBlock = 32;
constexpr int kLanes = 8;

// One block per 32 channels; lane y sums rows y, y + kLanes, ...; lanes combine in shared
// memory. Pass 1 writes the mean, pass 2 (reading it) the biased variance.
template <typename T, typename U, bool kVariance>
__global__ void ColumnStatisticsKernel(const T* x, int64_t rows, int64_t channels, U* mean,
                                       U* variance) {
  __shared__ double partial[kLanes][kChannelsPerBlock];
  const int64_t c = blockIdx.x * static_cast<int64_t>(kChannelsPerBlock) + threadIdx.x;
  double sum = 0;
  if (c < channels) {
    const double m = kVariance ? static_cast<double>(mean[c]) : 0.0;
    for (int64_t r = threadIdx.y; r < rows; r += kLanes) {
      const double v = static_cast<double>(Load(x[r * channels + c]));
      sum += kVariance ? (v - m) * (v - m) : v;
    }
  }
  partial[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0 && c < channels) {
    double total = 0;
    for (int lane = 0; lane < kLanes; ++lane) total += partial[lane][threadIdx.x];
    (kVariance ? variance : mean)[c] = static_cast<U>(total / rows);
  }
}

template <typename T, typename U>
__global__ void ApplyKernel(const T* x, T* y, int64_t total, int64_t channels, float epsilon,
                            const U* scale, const U* offset, const U* mean, const U* variance) {
  DUET_GRID_STRIDE_LOOP(i, total) {
    const int64_t c = i % channels;
    const U mul = scale[c] / sqrt(variance[c] + static_cast<U>(epsilon));
    const U add = offset[c] - mean[c] * mul;
    y[i] = Store<T>(static_cast<U>(Load(x[i])) * mul + add);
  }
}

template <typename U>
__global__ void FinishKernel(int64_t rows, int64_t channels, float epsilon, float factor,
                             bool training, const U* mean, const U* variance, const U* old_mean,
                             const U* old_variance, U* batch_mean, U* batch_variance, U* inv_std) {
  DUET_GRID_STRIDE_LOOP(k, channels) {
    inv_std[k] = static_cast<U>(1.0 / sqrt(static_cast<double>(variance[k]) + epsilon));
    const double bessel = rows > 1 ? static_cast<double>(rows) / (rows - 1) : 1.0;
    const bool blend = training && factor != 1.0f;
    const double m = mean[k];
    const double v = training ? variance[k] * bessel : variance[k];
    batch_mean[k] = static_cast<U>(blend ? (1 - factor) * old_mean[k] + factor * m : m);
    batch_variance[k] = static_cast<U>(blend ? (1 - factor) * old_variance[k] + factor * v : v);
  }
}

template <typename U>
__global__ void FillNanKernel(U* data, int64_t n) {
  DUET_GRID_STRIDE_LOOP(i, n) { data[i] = static_cast<U>(NAN); }
}

// Calls fn(T{}, U{}) for x's type.
template <typename Fn>
cudaError_t WithTypes(NnType x_type, Fn&& fn) {
  switch (x_type) {
    case NnType::kFloat32:
      return fn(float{}, float{});
    case NnType::kFloat64:
      return fn(double{}, double{});
    case NnType::kBFloat16:
      return fn(__nv_bfloat16{}, float{});
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t LaunchBatchNormStatistics(NnType x_type, const void* x, int64_t rows, int64_t channels,
                                      void* mean, void* variance, cudaStream_t stream) {
  if (rows <= 0 || channels <= 0) return cudaSuccess;
  const dim3 block(kChannelsPerBlock, kLanes);
  const int blocks = static_cast<int>((channels + kChannelsPerBlock - 1) / kChannelsPerBlock);
  return WithTypes(x_type, [&](auto t, auto u) {
    using T = decltype(t);
    using U = decltype(u);
    ColumnStatisticsKernel<T, U, false><<<blocks, block, 0, stream>>>(
        static_cast<const T*>(x), rows, channels, static_cast<U*>(mean), static_cast<U*>(variance));
    ColumnStatisticsKernel<T, U, true><<<blocks, block, 0, stream>>>(
        static_cast<const T*>(x), rows, channels, static_cast<U*>(mean), static_cast<U*>(variance));
    return cudaGetLastError();
  });
}

cudaError_t LaunchBatchNormApply(NnType x_type, const void* x, void* y, int64_t rows,
                                 int64_t channels, float epsilon, const void* scale,
                                 const void* offset, const void* mean, const void* variance,
                                 cudaStream_t stream) {
  const int64_t total = rows * channels;
  if (total <= 0) return cudaSuccess;
  return WithTypes(x_type, [&](auto t, auto u) {
    using T = decltype(t);
    using U = decltype(u);
    ApplyKernel<T, U><<<BlocksFor(total), kThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<T*>(y), total, channels, epsilon,
        static_cast<const U*>(scale), static_cast<const U*>(offset), static_cast<const U*>(mean),
        static_cast<const U*>(variance));
    return cudaGetLastError();
  });
}

cudaError_t LaunchBatchNormFinish(NnType u_type, int64_t rows, int64_t channels, float epsilon,
                                  float factor, bool training, const void* mean,
                                  const void* variance, const void* old_mean,
                                  const void* old_variance, void* batch_mean, void* batch_variance,
                                  void* inv_std, cudaStream_t stream) {
  if (channels <= 0) return cudaSuccess;
  auto launch = [&](auto u) {
    using U = decltype(u);
    FinishKernel<U><<<BlocksFor(channels), kThreads, 0, stream>>>(
        rows, channels, epsilon, factor, training, static_cast<const U*>(mean),
        static_cast<const U*>(variance), static_cast<const U*>(old_mean),
        static_cast<const U*>(old_variance), static_cast<U*>(batch_mean),
        static_cast<U*>(batch_variance), static_cast<U*>(inv_std));
    return cudaGetLastError();
  };
  if (u_type == NnType::kFloat32) return launch(float{});
  if (u_type == NnType::kFloat64) return launch(double{});
  return cudaErrorInvalidValue;
}

cudaError_t LaunchFillNan(NnType u_type, void* data, int64_t n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (u_type == NnType::kFloat32) {
    FillNanKernel<<<BlocksFor(n), kThreads, 0, stream>>>(static_cast<float*>(data), n);
  } else if (u_type == NnType::kFloat64) {
    FillNanKernel<<<BlocksFor(n), kThreads, 0, stream>>>(static_cast<double*>(data), n);
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace duet::cuda
