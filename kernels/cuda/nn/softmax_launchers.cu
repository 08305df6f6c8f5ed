#include <cuda_bf16.h>

#include <cmath>

#include "kernels/cuda/nn/nn_device_math.cuh"
#include "kernels/cuda/nn/softmax_launchers.h"

namespace duet::cuda {
namespace {

using nn_detail::Compute;
using nn_detail::Load;
using nn_detail::Store;

constexpr int kRowThreads = 256;

struct MaxOp {
  template <typename A>
  __device__ A operator()(A a, A b) const {
    return a > b ? a : b;
  }
};
struct SumOp {
  template <typename A>
  __device__ A operator()(A a, A b) const {
    return a + b;
  }
};

// The reduction of every thread's `v` over the block (kRowThreads threads), returned to all.
template <typename A, typename Op>
__device__ A BlockReduce(A v, Op op) {
  __shared__ A partial[kRowThreads];
  __syncthreads();  // the previous reduction's readers are done with `partial`
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int half = kRowThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      partial[threadIdx.x] = op(partial[threadIdx.x], partial[threadIdx.x + half]);
    __syncthreads();
  }
  return partial[0];
}

// The row's max (NaN propagates: a NaN max makes the whole row NaN, like the CPU's).
template <typename T, typename A>
__device__ A RowMax(const T* x, int64_t cols) {
  A m = -INFINITY;
  for (int64_t c = threadIdx.x; c < cols; c += kRowThreads) {
    const A v = static_cast<A>(Load(x[c]));
    m = (v > m || isnan(v)) ? v : m;
  }
  return BlockReduce(m, [](A a, A b) { return (a > b || isnan(a)) ? a : b; });
}

template <typename T, bool kLog>
__global__ void SoftmaxKernel(const T* x, T* y, int64_t rows, int64_t cols) {
  using A = Compute<T>;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* in = x + r * cols;
    T* out = y + r * cols;
    const A max = RowMax<T, A>(in, cols);
    A sum = 0;
    for (int64_t c = threadIdx.x; c < cols; c += kRowThreads) sum += exp(Load(in[c]) - max);
    sum = BlockReduce(sum, SumOp{});
    if (kLog) {
      const A log_sum = log(sum);
      for (int64_t c = threadIdx.x; c < cols; c += kRowThreads) {
        out[c] = Store<T>(Load(in[c]) - max - log_sum);
      }
    } else {
      const A inverse = A(1) / sum;
      for (int64_t c = threadIdx.x; c < cols; c += kRowThreads) {
        out[c] = Store<T>(exp(Load(in[c]) - max) * inverse);
      }
    }
  }
}

template <typename T>
__global__ void CrossEntropyKernel(const T* logits, BroadcastStrides logits_at, const T* labels,
                                   BroadcastStrides labels_at, T* loss, T* backprop, int64_t rows,
                                   int64_t cols) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* f = logits + r * logits_at.row;
    const T* p = labels + r * labels_at.row;
    T* b = backprop + r * cols;
    double max = -INFINITY;
    for (int64_t c = threadIdx.x; c < cols; c += kRowThreads) {
      const double v = f[c * logits_at.col];
      max = (v > max || isnan(v)) ? v : max;
    }
    max = BlockReduce(max, [](double a, double b) { return (a > b || isnan(a)) ? a : b; });
    double sum = 0;
    for (int64_t c = threadIdx.x; c < cols; c += kRowThreads)
      sum += exp(f[c * logits_at.col] - max);
    sum = BlockReduce(sum, SumOp{});
    const double log_sum = log(sum);
    double row_loss = 0;
    for (int64_t c = threadIdx.x; c < cols; c += kRowThreads) {
      const double shifted = f[c * logits_at.col] - max;
      const double label = p[c * labels_at.col];
      row_loss += label * (log_sum - shifted);
      b[c] = static_cast<T>(exp(shifted) / sum - label);
    }
    row_loss = BlockReduce(row_loss, SumOp{});
    if (threadIdx.x == 0) loss[r] = static_cast<T>(row_loss);
  }
}

template <typename T, typename L>
__global__ void SparseCrossEntropyKernel(const T* logits, const L* labels, T* loss, T* backprop,
                                         int64_t rows, int64_t cols) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* f = logits + r * cols;
    T* b = backprop + r * cols;
    const L label = labels[r];
    if (label < 0 || label >= cols) {
      const T nan = static_cast<T>(NAN);
      for (int64_t c = threadIdx.x; c < cols; c += kRowThreads) b[c] = nan;
      if (threadIdx.x == 0) loss[r] = nan;
      continue;
    }
    const T max = static_cast<T>(RowMax<T, double>(f, cols));
    double sum = 0;
    for (int64_t c = threadIdx.x; c < cols; c += kRowThreads) sum += exp(f[c] - max);
    sum = BlockReduce(sum, SumOp{});
    const T inverse = static_cast<T>(1 / sum);
    for (int64_t c = threadIdx.x; c < cols; c += kRowThreads) {
      b[c] = static_cast<T>(exp(f[c] - max)) * inverse - (c == label ? T(1) : T(0));
    }
    if (threadIdx.x == 0) loss[r] = static_cast<T>(log(sum) - (f[label] - max));
  }
}

int RowBlocks(int64_t rows) { return static_cast<int>(rows < 65535 * 16 ? rows : 65535 * 16); }

}  // namespace

cudaError_t LaunchSoftmax(NnType type, bool log, const void* x, void* y, int64_t rows, int64_t cols,
                          cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  auto launch = [&](auto zero) {
    using T = decltype(zero);
    if (log) {
      SoftmaxKernel<T, true><<<RowBlocks(rows), kRowThreads, 0, stream>>>(
          static_cast<const T*>(x), static_cast<T*>(y), rows, cols);
    } else {
      SoftmaxKernel<T, false><<<RowBlocks(rows), kRowThreads, 0, stream>>>(
          static_cast<const T*>(x), static_cast<T*>(y), rows, cols);
    }
    return cudaGetLastError();
  };
  switch (type) {
    case NnType::kFloat32:
      return launch(float{});
    case NnType::kFloat64:
      return launch(double{});
    case NnType::kBFloat16:
      return launch(__nv_bfloat16{});
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchSoftmaxCrossEntropy(NnType type, const void* logits, BroadcastStrides logits_at,
                                      const void* labels, BroadcastStrides labels_at, void* loss,
                                      void* backprop, int64_t rows, int64_t cols,
                                      cudaStream_t stream) {
  if (rows <= 0) return cudaSuccess;
  auto launch = [&](auto zero) {
    using T = decltype(zero);
    CrossEntropyKernel<T><<<RowBlocks(rows), kRowThreads, 0, stream>>>(
        static_cast<const T*>(logits), logits_at, static_cast<const T*>(labels), labels_at,
        static_cast<T*>(loss), static_cast<T*>(backprop), rows, cols);
    return cudaGetLastError();
  };
  if (type == NnType::kFloat32) return launch(float{});
  if (type == NnType::kFloat64) return launch(double{});
  return cudaErrorInvalidValue;
}

cudaError_t LaunchSparseSoftmaxCrossEntropy(NnType type, bool labels_int64, const void* logits,
                                            const void* labels, void* loss, void* backprop,
                                            int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows <= 0) return cudaSuccess;
  auto launch = [&](auto zero, auto label_zero) {
    using T = decltype(zero);
    using L = decltype(label_zero);
    SparseCrossEntropyKernel<T, L><<<RowBlocks(rows), kRowThreads, 0, stream>>>(
        static_cast<const T*>(logits), static_cast<const L*>(labels), static_cast<T*>(loss),
        static_cast<T*>(backprop), rows, cols);
    return cudaGetLastError();
  };
  if (type == NnType::kFloat32) {
    return labels_int64 ? launch(float{}, int64_t{}) : launch(float{}, int32_t{});
  }
  if (type == NnType::kFloat64) {
    return labels_int64 ? launch(double{}, int64_t{}) : launch(double{}, int32_t{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace duet::cuda
