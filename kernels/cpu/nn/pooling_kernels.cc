// MaxPool, AvgPool, MaxPool3D and AvgPool3D on the CPU: oneDNN's pooling for float32 and bfloat16
// (in float32 where the CPU lacks bfloat16, Note [Reduced precision without oneDNN support] in
// dnnl_plan.cc), plain loops for float64 (oneDNN 2.6 has no f64).
#include <algorithm>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/common/channels_last_kernel.h"
#include "kernels/common/pool_geometry.h"
#include "kernels/cpu/common/dnnl_plan.h"
#include "kernels/cpu/nn/pool_dnnl.h"
#include "kernels/kernel_registry.h"
#include "ops/nn/nn_attrs.h"

namespace duet {
namespace {

constexpr DnnlPlanKind kPoolPlan{"pooling"};

absl::Status DnnlPool(KernelContext& ctx, const PoolGeometry& g, PoolKind kind) {
  const DType dtype = ctx.input(0).dtype();
  DUET_ASSIGN_OR_RETURN(
      DnnlPlan * plan,
      CachedDnnlPlan(kPoolPlan, PoolDnnlKey(dtype, kind, g), dtype,
                     [&](DnnlPlan& p, dnnl::memory::data_type type) {
                       const PoolDescs d(g, kind, type);
                       p.AddBuffer(DNNL_ARG_SRC, d.src, DnnlUse::kRead);
                       p.AddBuffer(DNNL_ARG_DST, d.dst, DnnlUse::kWrite);
                       p.AddStep(
                           dnnl::pooling_forward(d.Forward(dnnl::prop_kind::forward_inference)),
                           {{DNNL_ARG_SRC, p.buffer(DNNL_ARG_SRC)},
                            {DNNL_ARG_DST, p.buffer(DNNL_ARG_DST)}});
                     }));
  plan->Bind(DNNL_ARG_SRC, ctx.input(0));
  plan->Bind(DNNL_ARG_DST, ctx.output(0));
  return plan->Run(
      absl::StrCat(kind == PoolKind::kMax ? "max" : "average", " pooling ", DTypeName(dtype)));
}

// float64 pooling over the 3-D form of `g`: for each output cell, folds the window's in-bounds
// input cells (all channels at once, so the inner loop is contiguous).
void LoopPool(const double* in, double* out, const PoolGeometry& g, PoolKind kind) {
  const int64_t c = g.channels;
  std::vector<double> acc(c);
  for (int64_t n = 0; n < g.batch; ++n) {
    const double* image = in + n * g.InCells() * c;
    double* pooled = out + n * g.OutCells() * c;
    g.ForEachWindow([&](int64_t out_cell, const PoolGeometry::Window& w) {
      std::fill(acc.begin(), acc.end(),
                kind == PoolKind::kMax ? -std::numeric_limits<double>::infinity() : 0.0);
      g.ForEachCell(w, [&](int64_t in_cell) {
        const double* cell = image + in_cell * c;
        for (int64_t k = 0; k < c; ++k) {
          acc[k] = kind == PoolKind::kMax ? std::max(acc[k], cell[k]) : acc[k] + cell[k];
        }
      });
      const double count = static_cast<double>(w.Cells());
      double* result = pooled + out_cell * c;
      for (int64_t k = 0; k < c; ++k) result[k] = kind == PoolKind::kMax ? acc[k] : acc[k] / count;
    });
  }
}

absl::Status RunPool(KernelContext& ctx, const PoolGeometry& g, PoolKind kind) {
  if (ctx.output(0).num_elements() == 0) return absl::OkStatus();
  if (ctx.input(0).dtype() != kFloat64) return DnnlPool(ctx, g, kind);
  LoopPool(ctx.input(0).data<double>(), ctx.output(0).mutable_data<double>(), g.As3D(), kind);
  return absl::OkStatus();
}

// MaxPool and MaxPool3D (whose padding is never EXPLICIT).
absl::Status MaxPoolKernel(KernelContext& ctx) {
  return RunPool(
      ctx,
      MakePoolGeometry(ctx, ctx.input(0).shape(), ctx.output(0).shape(), MaxPoolExplicitPads(ctx)),
      PoolKind::kMax);
}

// AvgPool and AvgPool3D.
absl::Status AvgPoolKernel(KernelContext& ctx) {
  return RunPool(ctx, MakePoolGeometry(ctx, ctx.input(0).shape(), ctx.output(0).shape(), nullptr),
                 PoolKind::kAvg);
}

const KernelRegistrar kMaxPool("MaxPool", DeviceType::kCpu, {kFloat32, kFloat64, kBFloat16},
                               {ChannelsLast<MaxPoolKernel>});
const KernelRegistrar kAvgPool("AvgPool", DeviceType::kCpu, {kFloat32, kFloat64, kBFloat16},
                               {ChannelsLast<AvgPoolKernel>});
const KernelRegistrar kMaxPool3D("MaxPool3D", DeviceType::kCpu, {kFloat32, kBFloat16},
                                 {MaxPoolKernel});
const KernelRegistrar kAvgPool3D("AvgPool3D", DeviceType::kCpu, {kFloat32, kFloat64, kBFloat16},
                                 {AvgPoolKernel});

}  // namespace
}  // namespace duet
