// Softmax and LogSoftmax over the last axis on the CPU: oneDNN for float32 and bfloat16 (in
// float32 where the CPU lacks bfloat16, Note [Reduced precision without oneDNN support] in
// dnnl_plan.cc), a max-shifted loop for float64.
//
// Note [Softmax rows with NaN or +inf]
// TensorFlow computes exp(x - max(x)) / sum: a row holding a NaN or +inf (where inf - inf is
// NaN), or only -inf, comes out all NaN. oneDNN's max drops NaN and gives [nan, 0, 0] for
// [nan, 1, 2], so the rows whose maximum is not finite are set to NaN after it; the float64 loop
// gets there by itself, with a maximum that keeps NaN.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/common/dnnl_engine.h"
#include "kernels/cpu/common/dnnl_plan.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

constexpr DnnlPlanKind kSoftmaxPlan{"Softmax"};
constexpr DnnlPlanKind kLogSoftmaxPlan{"LogSoftmax"};

absl::Status DnnlSoftmax(KernelContext& ctx, int64_t rows, int64_t cols, bool log) {
  const DType dtype = ctx.input(0).dtype();
  const DnnlKey key = {static_cast<int64_t>(dtype), rows, cols};
  DUET_ASSIGN_OR_RETURN(
      DnnlPlan * plan,
      CachedDnnlPlan(
          log ? kLogSoftmaxPlan : kSoftmaxPlan, key, dtype,
          [&](DnnlPlan& p, dnnl::memory::data_type type) {
            const dnnl::memory::desc md({rows, cols}, type, dnnl::memory::format_tag::ab);
            p.AddBuffer(DNNL_ARG_SRC, md, DnnlUse::kRead);
            p.AddBuffer(DNNL_ARG_DST, md, DnnlUse::kWrite);
            const auto inference = dnnl::prop_kind::forward_inference;
            dnnl::primitive primitive =
                log ? dnnl::primitive(dnnl::logsoftmax_forward(
                          {{inference, md, /*logsoftmax_axis=*/1}, DnnlEngine()}))
                    : dnnl::primitive(dnnl::softmax_forward(
                          {{inference, md, /*softmax_axis=*/1}, DnnlEngine()}));
            p.AddStep(primitive, {{DNNL_ARG_SRC, p.buffer(DNNL_ARG_SRC)},
                                  {DNNL_ARG_DST, p.buffer(DNNL_ARG_DST)}});
          }));
  plan->Bind(DNNL_ARG_SRC, ctx.input(0));
  plan->Bind(DNNL_ARG_DST, ctx.output(0));
  return plan->Run(absl::StrCat(log ? "log-softmax " : "softmax ", DTypeName(dtype)));
}

// The largest of x[0, n), NaN when any is NaN (std::max_element skips NaN depending on where it
// sits). bfloat16 is compared as float.
template <typename T>
auto RowMax(const T* x, int64_t n) {
  using W = std::conditional_t<std::is_same_v<T, double>, double, float>;
  W max = -std::numeric_limits<W>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    const W v = static_cast<W>(x[i]);
    max = (v > max || v != v) ? v : max;
  }
  return max;
}

// Sets the rows [begin, end) whose maximum is NaN, +inf or -inf to NaN (Note [Softmax rows with
// NaN or +inf]).
template <typename T>
void NanRowsWithoutFiniteMax(const T* in, T* out, int64_t begin, int64_t end, int64_t cols) {
  for (int64_t r = begin; r < end; ++r) {
    if (!std::isfinite(RowMax(in + r * cols, cols))) {
      std::fill(out + r * cols, out + (r + 1) * cols, T(NAN));
    }
  }
}

// float64: subtracting the row max keeps exp() from overflowing.
void LoopSoftmax(const double* in, double* out, int64_t begin, int64_t end, int64_t cols,
                 bool log) {
  for (int64_t r = begin; r < end; ++r) {
    const double* x = in + r * cols;
    double* y = out + r * cols;
    const double max = RowMax(x, cols);
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(x[c] - max);
    if (log) {
      const double log_sum = std::log(sum);
      for (int64_t c = 0; c < cols; ++c) y[c] = x[c] - max - log_sum;
    } else {
      for (int64_t c = 0; c < cols; ++c) y[c] = std::exp(x[c] - max) / sum;
    }
  }
}

absl::Status RunSoftmax(KernelContext& ctx, bool log) {
  const Tensor& logits = ctx.input(0);
  if (logits.num_elements() == 0) return absl::OkStatus();
  const int64_t cols = logits.shape()[logits.rank() - 1];
  const int64_t rows = logits.num_elements() / cols;
  const int64_t min_rows = std::max<int64_t>(1, 16384 / cols);
  if (logits.dtype() != kFloat64) {
    DUET_RETURN_IF_ERROR(DnnlSoftmax(ctx, rows, cols, log));
    VisitDType(logits.dtype(), [&](auto zero) {
      using T = decltype(zero);
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, bfloat16>) {
        const T* in = logits.data<T>();
        T* out = ctx.output(0).mutable_data<T>();
        ctx.pool().ParallelFor(rows, min_rows, [&](int64_t b, int64_t e) {
          NanRowsWithoutFiniteMax(in, out, b, e, cols);
        });
      }
    });
    return absl::OkStatus();
  }
  const double* in = logits.data<double>();
  double* out = ctx.output(0).mutable_data<double>();
  ctx.pool().ParallelFor(rows, min_rows,
                         [&](int64_t b, int64_t e) { LoopSoftmax(in, out, b, e, cols, log); });
  return absl::OkStatus();
}

absl::Status SoftmaxKernel(KernelContext& ctx) { return RunSoftmax(ctx, /*log=*/false); }
absl::Status LogSoftmaxKernel(KernelContext& ctx) { return RunSoftmax(ctx, /*log=*/true); }

const KernelRegistrar kSoftmax("Softmax", DeviceType::kCpu, {kFloat32, kFloat64, kBFloat16},
                               {SoftmaxKernel});
const KernelRegistrar kLogSoftmax("LogSoftmax", DeviceType::kCpu, {kFloat32, kFloat64, kBFloat16},
                                  {LogSoftmaxKernel});

}  // namespace
}  // namespace duet
