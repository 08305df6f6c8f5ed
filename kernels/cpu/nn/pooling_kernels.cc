// MaxPool and AvgPool on the CPU: oneDNN's pooling for float32 and bfloat16 (in float32 where the
// CPU lacks bfloat16, Note [Reduced precision without oneDNN support] in dnnl_plan.cc), plain loops
// for float64 (oneDNN 2.6 has no f64).
#include <algorithm>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/common/pool_geometry.h"
#include "kernels/cpu/common/dnnl_engine.h"
#include "kernels/cpu/common/dnnl_plan.h"
#include "kernels/kernel_registry.h"
#include "ops/nn/nn_attrs.h"

namespace duet {
namespace {

enum class PoolKind { kMax, kAvg };

constexpr DnnlPlanKind kPoolPlan{"pooling"};

absl::Status DnnlPool(KernelContext& ctx, const PoolGeometry& g, PoolKind kind) {
  const DType dtype = ctx.input(0).dtype();
  const DnnlKey key = {static_cast<int64_t>(dtype),
                       static_cast<int64_t>(kind),
                       g.batch,
                       g.channels,
                       g.in[0],
                       g.in[1],
                       g.out[0],
                       g.out[1],
                       g.window[0],
                       g.window[1],
                       g.stride[0],
                       g.stride[1],
                       g.pad[0].before,
                       g.pad[0].after,
                       g.pad[1].before,
                       g.pad[1].after};
  DUET_ASSIGN_OR_RETURN(
      DnnlPlan * plan,
      CachedDnnlPlan(kPoolPlan, key, dtype, [&](DnnlPlan& p, dnnl::memory::data_type type) {
        using dnnl::memory;
        const memory::desc src({g.batch, g.channels, g.in[0], g.in[1]}, type,
                               memory::format_tag::nhwc);
        const memory::desc dst({g.batch, g.channels, g.out[0], g.out[1]}, type,
                               memory::format_tag::nhwc);
        // TensorFlow's AvgPool divides by the number of cells inside the input.
        const auto algorithm = kind == PoolKind::kMax
                                   ? dnnl::algorithm::pooling_max
                                   : dnnl::algorithm::pooling_avg_exclude_padding;
        const dnnl::pooling_forward::primitive_desc pd(
            dnnl::pooling_forward::desc(dnnl::prop_kind::forward_inference, algorithm, src, dst,
                                        {g.stride[0], g.stride[1]}, {g.window[0], g.window[1]},
                                        {g.pad[0].before, g.pad[1].before},
                                        {g.pad[0].after, g.pad[1].after}),
            DnnlEngine());
        p.AddBuffer(DNNL_ARG_SRC, src, DnnlUse::kRead);
        p.AddBuffer(DNNL_ARG_DST, dst, DnnlUse::kWrite);
        p.AddStep(dnnl::pooling_forward(pd),
                  {{DNNL_ARG_SRC, p.buffer(DNNL_ARG_SRC)}, {DNNL_ARG_DST, p.buffer(DNNL_ARG_DST)}});
      }));
  plan->Bind(DNNL_ARG_SRC, ctx.input(0));
  plan->Bind(DNNL_ARG_DST, ctx.output(0));
  return plan->Run(
      absl::StrCat(kind == PoolKind::kMax ? "max" : "average", " pooling ", DTypeName(dtype)));
}

// float64 pooling: for each output cell, folds the window's in-bounds input rows (all channels
// at once, so the inner loop is contiguous).
void LoopPool(const double* in, double* out, const PoolGeometry& g, PoolKind kind) {
  const int64_t c = g.channels;
  std::vector<double> acc(c);
  for (int64_t n = 0; n < g.batch; ++n) {
    const double* image = in + n * g.in[0] * g.in[1] * c;
    for (int64_t oh = 0; oh < g.out[0]; ++oh) {
      const int64_t h0 = oh * g.stride[0] - g.pad[0].before;
      const int64_t h_begin = std::max<int64_t>(h0, 0);
      const int64_t h_end = std::min(h0 + g.window[0], g.in[0]);
      for (int64_t ow = 0; ow < g.out[1]; ++ow, out += c) {
        const int64_t w0 = ow * g.stride[1] - g.pad[1].before;
        const int64_t w_begin = std::max<int64_t>(w0, 0);
        const int64_t w_end = std::min(w0 + g.window[1], g.in[1]);
        std::fill(acc.begin(), acc.end(),
                  kind == PoolKind::kMax ? -std::numeric_limits<double>::infinity() : 0.0);
        for (int64_t h = h_begin; h < h_end; ++h) {
          for (int64_t w = w_begin; w < w_end; ++w) {
            const double* cell = image + (h * g.in[1] + w) * c;
            for (int64_t k = 0; k < c; ++k) {
              acc[k] = kind == PoolKind::kMax ? std::max(acc[k], cell[k]) : acc[k] + cell[k];
            }
          }
        }
        const double count = static_cast<double>((h_end - h_begin) * (w_end - w_begin));
        for (int64_t k = 0; k < c; ++k) out[k] = kind == PoolKind::kMax ? acc[k] : acc[k] / count;
      }
    }
  }
}

absl::Status RunPool(KernelContext& ctx, const PoolGeometry& g, PoolKind kind) {
  if (ctx.output(0).num_elements() == 0) return absl::OkStatus();
  if (ctx.input(0).dtype() != kFloat64) return DnnlPool(ctx, g, kind);
  LoopPool(ctx.input(0).data<double>(), ctx.output(0).mutable_data<double>(), g, kind);
  return absl::OkStatus();
}

absl::Status MaxPoolKernel(KernelContext& ctx) {
  return RunPool(
      ctx,
      MakePoolGeometry(ctx, ctx.input(0).shape(), ctx.output(0).shape(), MaxPoolExplicitPads(ctx)),
      PoolKind::kMax);
}

absl::Status AvgPoolKernel(KernelContext& ctx) {
  return RunPool(ctx, MakePoolGeometry(ctx, ctx.input(0).shape(), ctx.output(0).shape(), nullptr),
                 PoolKind::kAvg);
}

const KernelRegistrar kMaxPool("MaxPool", DeviceType::kCpu, {kFloat32, kFloat64, kBFloat16},
                               {MaxPoolKernel});
const KernelRegistrar kAvgPool("AvgPool", DeviceType::kCpu, {kFloat32, kFloat64, kBFloat16},
                               {AvgPoolKernel});

}  // namespace
}  // namespace duet
