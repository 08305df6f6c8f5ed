// Row-wise launchers (one block per row of a [rows, cols] matrix), compiled by nvcc: Softmax and
// LogSoftmax over the last axis and the two softmax cross-entropies. Asynchronous on `stream`;
// rows == 0 launches nothing.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/cuda/nn/nn_launch_types.h"

namespace duet::cuda {

// y = softmax(x) (or log_softmax when `log`) along each row; float32, float64 or bfloat16
// (computed in float32). Max-shifted, so large logits do not overflow.
cudaError_t LaunchSoftmax(NnType type, bool log, const void* x, void* y, int64_t rows, int64_t cols,
                          cudaStream_t stream);

// Where element (r, c) of a [rows, cols] operand broadcast to the op's shape sits: r * row +
// c * col (0 along a broadcast dim).
struct BroadcastStrides {
  int64_t row, col;
};

// SoftmaxCrossEntropyWithLogits: with the shifted logits s = logits - max over the row, loss[r] =
// sum_c labels[r,c] * (log(sum_c exp(s)) - s[r,c]) (as the CPU and TensorFlow: never lse(logits)
// - logits, which cancels for huge logits), backprop = softmax(logits) - labels, [rows, cols];
// logits and labels are read through their broadcast strides; sums in double (float32 or
// float64).
cudaError_t LaunchSoftmaxCrossEntropy(NnType type, const void* logits, BroadcastStrides logits_at,
                                      const void* labels, BroadcastStrides labels_at, void* loss,
                                      void* backprop, int64_t rows, int64_t cols,
                                      cudaStream_t stream);

// SparseSoftmaxCrossEntropyWithLogits with int32 (`labels_int64` false) or int64 labels: loss[r]
// = log(sum_c exp(s)) - s[r, label] of the shifted logits, backprop = softmax(logits) -
// onehot(label). A label outside [0, cols) makes its row's loss and backprop NaN (as TensorFlow's
// GPU kernel does: checking on the host would wait for the device).
cudaError_t LaunchSparseSoftmaxCrossEntropy(NnType type, bool labels_int64, const void* logits,
                                            const void* labels, void* loss, void* backprop,
                                            int64_t rows, int64_t cols, cudaStream_t stream);

}  // namespace duet::cuda
