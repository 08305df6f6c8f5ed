#include "kernels/cpu/nn/conv2d_runner.h"

#include <Eigen/Dense>
#include <cstring>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kernels/cpu/common/dnnl_plan.h"
#include "kernels/cpu/nn/conv_dnnl.h"
#include "kernels/cpu/nn/fused_epilogue.h"
#include "kernels/cpu/nn/grouped_conv_loops.h"
#include "kernels/cpu/nn/im2col.h"

namespace duet {
namespace {

constexpr DnnlPlanKind kConv2DPlan{"Conv2D"};
constexpr DnnlPlanKind kFusedConv2DPlan{"_FusedConv2D"};

// Builds the convolution (and, when oneDNN wants blocked weights, a weights reorder before it),
// with the epilogue's bias and post-ops when there is one (the residual is in dst already).
void BuildConvPlan(DnnlPlan& p, const ConvGeometry& g, dnnl::memory::data_type type,
                   const FusedEpilogue* epilogue) {
  const ConvDescs d(g, type);
  const dnnl::convolution_forward::primitive_desc pd =
      epilogue ? d.ForwardWithBias(dnnl::prop_kind::forward_inference, EpilogueDnnlAttr(*epilogue))
               : d.Forward(dnnl::prop_kind::forward_inference);
  const bool reads_dst = epilogue != nullptr && epilogue->add_residual;
  p.AddBuffer(DNNL_ARG_SRC, d.src, DnnlUse::kRead);
  p.AddBuffer(DNNL_ARG_WEIGHTS, d.user_weights, DnnlUse::kRead);
  p.AddBuffer(DNNL_ARG_DST, d.dst, reads_dst ? DnnlUse::kReadWrite : DnnlUse::kWrite);
  const dnnl::memory weights =
      WeightsInLayout(p, DNNL_ARG_WEIGHTS, d.user_weights, pd.weights_desc());
  std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, p.buffer(DNNL_ARG_SRC)},
                                                {DNNL_ARG_WEIGHTS, weights},
                                                {DNNL_ARG_DST, p.buffer(DNNL_ARG_DST)}};
  if (epilogue) {
    p.AddBuffer(DNNL_ARG_BIAS, d.bias, DnnlUse::kRead);
    args.emplace(DNNL_ARG_BIAS, p.buffer(DNNL_ARG_BIAS));
  }
  p.AddStep(dnnl::convolution_forward(pd), std::move(args));
}

absl::Status DnnlConv(KernelContext& ctx, const ConvGeometry& g, const FusedEpilogue* epilogue) {
  auto build = [epilogue](DnnlPlan& p, const ConvGeometry& geometry, dnnl::memory::data_type type) {
    BuildConvPlan(p, geometry, type, epilogue);
  };
  const DType dtype = ctx.input(0).dtype();
  if (epilogue == nullptr) {
    return RunConvPlan(
        kConv2DPlan, build, dtype, g,
        {{DNNL_ARG_SRC, ctx.input(0).raw_data()}, {DNNL_ARG_DST, ctx.output(0).raw_data()}},
        "convolution", {}, &ctx.input(1));
  }
  if (epilogue->add_residual) MoveResidualIntoOutput(ctx);
  DnnlKey epilogue_key;
  AppendEpilogueKey(*epilogue, epilogue_key);
  return RunConvPlan(kFusedConv2DPlan, build, dtype, g,
                     {{DNNL_ARG_SRC, ctx.input(0).raw_data()},
                      {DNNL_ARG_BIAS, ctx.input(2).raw_data()},
                      {DNNL_ARG_DST, ctx.output(0).raw_data()}},
                     "fused convolution", epilogue_key, &ctx.input(1));
}

// output [positions, out_c] = im2col(input) [positions, patch] x filter [patch, out_c] per image.
absl::Status EigenConv(KernelContext& ctx, const ConvGeometry& g) {
  const int64_t patch = g.WindowCells() * g.in_c;
  const int64_t positions = g.OutCells();
  std::vector<double> col(positions * patch);
  const double* input = ctx.input(0).data<double>();
  double* output = ctx.output(0).mutable_data<double>();
  const Eigen::Map<const RowMajorMatrix> filter(ctx.input(1).data<double>(), patch, g.out_c);
  for (int64_t n = 0; n < g.batch; ++n) {
    Im2Col(input + n * g.InCells() * g.in_c, g, col.data());
    const Eigen::Map<const RowMajorMatrix> patches(col.data(), positions, patch);
    Eigen::Map<RowMajorMatrix>(output + n * positions * g.out_c, positions, g.out_c).noalias() =
        patches * filter;
  }
  return absl::OkStatus();
}

// Inputs: input, filter[, bias]. The window attrs are read through `keys`.
absl::Status RunConv(KernelContext& ctx, ConvKind kind, const ConvWindowKeys& keys,
                     const FusedEpilogue* epilogue) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const ConvGeometry g =
      MakeConvGeometry(ctx, kind, keys, ctx.input(0).shape(), ctx.input(1).shape(), out.shape());
  if (g.in_c > 0 && out.dtype() != kFloat64) return DnnlConv(ctx, g, epilogue);
  Tensor residual;
  if (epilogue != nullptr && epilogue->add_residual) residual = ResidualBeforeOverwrite(ctx);
  if (g.in_c == 0) {  // empty sums: zeros
    std::memset(out.raw_data(), 0, out.nbytes());
  } else if (g.groups == 1) {
    DUET_RETURN_IF_ERROR(EigenConv(ctx, g));
  } else {
    GroupedConvForward(g, ctx.input(0).data<double>(), ctx.input(1).data<double>(),
                       out.mutable_data<double>());
  }
  if (epilogue != nullptr) {
    ApplyFusedEpilogue(*epilogue, ctx.input(2), residual.defined() ? &residual : nullptr, out,
                       ctx.pool());
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunConv2D(KernelContext& ctx, const FusedEpilogue* epilogue) {
  return RunConv(ctx, ConvKind::kConv2D, ConvWindowKeysOf(ConvKind::kConv2D), epilogue);
}

absl::Status RunDepthwiseConv2D(KernelContext& ctx) {
  return RunConv(ctx, ConvKind::kDepthwise, ConvWindowKeysOf(ConvKind::kDepthwise), nullptr);
}

absl::Status RunFusedDepthwiseConv2D(KernelContext& ctx, const FusedEpilogue& epilogue) {
  return RunConv(ctx, ConvKind::kDepthwise, kFusedDepthwiseWindowKeys, &epilogue);
}

absl::Status RunConv3D(KernelContext& ctx) {
  return RunConv(ctx, ConvKind::kConv3D, ConvWindowKeysOf(ConvKind::kConv3D), nullptr);
}

}  // namespace duet
