// SoftmaxCrossEntropyWithLogits and SparseSoftmaxCrossEntropyWithLogits on the CPU: one pass per
// row computing log-sum-exp (max-shifted, so large logits do not overflow), the loss, and the
// backprop softmax - labels. No oneDNN primitive computes a cross-entropy.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

// log(sum(exp(x))) of one row; accumulates in double for float32 too.
template <typename T>
double LogSumExp(const T* x, int64_t n) {
  const double max = *std::max_element(x, x + n);
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += std::exp(x[i] - max);
  return max + std::log(sum);
}

// Rows per ParallelFor chunk: enough work per chunk to be worth a thread.
int64_t MinRows(int64_t cols) { return std::max<int64_t>(1, 16384 / std::max<int64_t>(cols, 1)); }

template <typename T>
absl::Status CrossEntropyKernel(KernelContext& ctx) {
  const Tensor& features = ctx.input(0);
  const int64_t rows = features.shape()[0];
  const int64_t cols = features.shape()[1];
  const T* logits = features.data<T>();
  const T* labels = ctx.input(1).data<T>();
  T* loss = ctx.output(0).mutable_data<T>();
  T* backprop = ctx.output(1).mutable_data<T>();
  ctx.pool().ParallelFor(rows, MinRows(cols), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* f = logits + r * cols;
      const T* p = labels + r * cols;
      const double lse = cols > 0 ? LogSumExp(f, cols) : 0.0;
      double sum = 0;
      for (int64_t c = 0; c < cols; ++c) {
        sum += p[c] * (lse - f[c]);
        backprop[r * cols + c] = static_cast<T>(std::exp(f[c] - lse) - p[c]);
      }
      loss[r] = static_cast<T>(sum);
    }
  });
  return absl::OkStatus();
}

// Every label must index a class: checked before anything is computed.
template <typename L>
absl::Status CheckLabels(const L* labels, int64_t rows, int64_t classes) {
  for (int64_t r = 0; r < rows; ++r) {
    if (labels[r] < 0 || labels[r] >= classes) {
      return absl::InvalidArgumentError(absl::StrCat("label ", labels[r], " (at index ", r,
                                                     ") is outside the valid range [0, ", classes,
                                                     ") of the logits' ", classes, " classes"));
    }
  }
  return absl::OkStatus();
}

template <typename T, typename L>
absl::Status SparseCrossEntropy(KernelContext& ctx) {
  const Tensor& features = ctx.input(0);
  const int64_t rows = features.shape()[0];
  const int64_t cols = features.shape()[1];
  const L* labels = ctx.input(1).data<L>();
  DUET_RETURN_IF_ERROR(CheckLabels(labels, rows, cols));
  const T* logits = features.data<T>();
  T* loss = ctx.output(0).mutable_data<T>();
  T* backprop = ctx.output(1).mutable_data<T>();
  ctx.pool().ParallelFor(rows, MinRows(cols), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      // One exp per element (in T): backprop holds exp(f - max) until the row's sum is known.
      const T* f = logits + r * cols;
      T* b = backprop + r * cols;
      const T max = *std::max_element(f, f + cols);
      double sum = 0;
      for (int64_t c = 0; c < cols; ++c) {
        b[c] = std::exp(f[c] - max);
        sum += b[c];
      }
      const T inverse = static_cast<T>(1 / sum);
      for (int64_t c = 0; c < cols; ++c) b[c] *= inverse;
      b[labels[r]] -= T{1};
      loss[r] = static_cast<T>(max + std::log(sum) - f[labels[r]]);
    }
  });
  return absl::OkStatus();
}

template <typename T>
absl::Status SparseCrossEntropyKernel(KernelContext& ctx) {
  return ctx.input(1).dtype() == kInt32 ? SparseCrossEntropy<T, int32_t>(ctx)
                                        : SparseCrossEntropy<T, int64_t>(ctx);
}

const KernelRegistrar kCrossEntropyF32("SoftmaxCrossEntropyWithLogits", DeviceType::kCpu,
                                       {kFloat32}, {CrossEntropyKernel<float>});
const KernelRegistrar kCrossEntropyF64("SoftmaxCrossEntropyWithLogits", DeviceType::kCpu,
                                       {kFloat64}, {CrossEntropyKernel<double>});
const KernelRegistrar kSparseF32("SparseSoftmaxCrossEntropyWithLogits", DeviceType::kCpu,
                                 {kFloat32}, {SparseCrossEntropyKernel<float>});
const KernelRegistrar kSparseF64("SparseSoftmaxCrossEntropyWithLogits", DeviceType::kCpu,
                                 {kFloat64}, {SparseCrossEntropyKernel<double>});

}  // namespace
}  // namespace duet
