// SoftmaxCrossEntropyWithLogits and SparseSoftmaxCrossEntropyWithLogits on the CPU: one pass per
// row computing the logits shifted by the row's max, their log-sum-exp, the loss, and the
// backprop softmax - labels. No oneDNN primitive computes a cross-entropy.
//
// Note [Cross-entropy of shifted logits]
// As TensorFlow's kernel, the loss is sum(labels * (log(sum(exp(s))) - s)) of the shifted logits
// s = x - max(x), never log-sum-exp(x) - x: for logits [1e30, 1e30, -1e30], lse(x) = 1e30 +
// log(2) rounds to 1e30 and the loss cancels to 0, where lse(s) - s keeps log(2).
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

// Rows per ParallelFor chunk: enough work per chunk to be worth a thread.
int64_t MinRows(int64_t cols) { return std::max<int64_t>(1, 16384 / std::max<int64_t>(cols, 1)); }

// Element (r, c) of an operand of rank <= 2 broadcast to the op's [rows, cols] (NumPy rules,
// which the shape function checked): stride 0 along its dims of size 1 and those it lacks.
template <typename T>
struct Broadcast2D {
  const T* data;
  int64_t row_stride = 0, col_stride = 0;

  explicit Broadcast2D(const Tensor& t) : data(t.data<T>()) {
    const int rank = t.rank();
    const int64_t rows = rank == 2 ? t.shape()[0] : 1;
    const int64_t cols = rank >= 1 ? t.shape()[rank - 1] : 1;
    row_stride = rows == 1 ? 0 : cols;
    col_stride = cols == 1 ? 0 : 1;
  }
  double operator()(int64_t r, int64_t c) const {
    return static_cast<double>(data[r * row_stride + c * col_stride]);
  }
};

template <typename T>
absl::Status CrossEntropyKernel(KernelContext& ctx) {
  T* backprop = ctx.output(1).mutable_data<T>();
  const int64_t rows = ctx.output(1).shape()[0];
  const int64_t cols = ctx.output(1).shape()[1];
  const Broadcast2D<T> logits(ctx.input(0));
  const Broadcast2D<T> labels(ctx.input(1));
  T* loss = ctx.output(0).mutable_data<T>();
  ctx.pool().ParallelFor(rows, MinRows(cols), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      // The max keeps NaN, as TensorFlow's does (Note [Cross-entropy of shifted logits]).
      double max = -INFINITY;
      for (int64_t c = 0; c < cols; ++c) {
        const double f = logits(r, c);
        max = (f > max || f != f) ? f : max;
      }
      double sum_exp = 0;
      for (int64_t c = 0; c < cols; ++c) sum_exp += std::exp(logits(r, c) - max);
      const double log_sum = std::log(sum_exp);
      double sum = 0;
      for (int64_t c = 0; c < cols; ++c) {
        const double shifted = logits(r, c) - max;
        sum += labels(r, c) * (log_sum - shifted);
        backprop[r * cols + c] = static_cast<T>(std::exp(shifted) / sum_exp - labels(r, c));
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
      // Of the shifted logits: Note [Cross-entropy of shifted logits].
      loss[r] = static_cast<T>(std::log(sum) - (f[labels[r]] - max));
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
