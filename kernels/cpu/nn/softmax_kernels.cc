// Softmax and LogSoftmax over the last axis on the CPU: oneDNN for float32 and bfloat16 (in
// float32 where the CPU lacks bfloat16, Note [Reduced precision without oneDNN support] in
// dnnl_plan.cc), a max-shifted loop for float64.
#include <algorithm>
#include <cmath>

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

// float64: subtracting the row max keeps exp() from overflowing.
void LoopSoftmax(const double* in, double* out, int64_t begin, int64_t end, int64_t cols,
                 bool log) {
  for (int64_t r = begin; r < end; ++r) {
    const double* x = in + r * cols;
    double* y = out + r * cols;
    const double max = *std::max_element(x, x + cols);
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
  if (logits.dtype() != kFloat64) return DnnlSoftmax(ctx, rows, cols, log);
  const double* in = logits.data<double>();
  double* out = ctx.output(0).mutable_data<double>();
  ctx.pool().ParallelFor(rows, std::max<int64_t>(1, 16384 / cols),
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
