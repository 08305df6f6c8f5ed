// Conv2DBackpropInput, Conv2DBackpropFilter, the depthwise DepthwiseConv2dNativeBackpropInput and
// DepthwiseConv2dNativeBackpropFilter, and Conv3DBackpropInputV2 and Conv3DBackpropFilterV2 on the
// CPU: oneDNN's backward-data and backward-weights convolutions (grouped, one group per input
// channel, for the depthwise ops) for float32 and bfloat16 (NHWC or NDHWC activations, weights
// reordered to and from the layout oneDNN prefers; bfloat16 in float32 where the CPU lacks it, Note
// [Reduced precision without oneDNN support] in kernels/cpu/common/dnnl_plan.cc); for float64
// (oneDNN 2.6 has no f64) im2col/col2im + Eigen GEMM, and direct loops for the grouped
// convolutions (grouped_conv_loops.h).
#include <Eigen/Dense>
#include <cstring>
#include <vector>

#include "kernels/common/channels_last_kernel.h"
#include "kernels/cpu/common/dnnl_engine.h"
#include "kernels/cpu/common/dnnl_plan.h"
#include "kernels/cpu/nn/conv_dnnl.h"
#include "kernels/cpu/nn/grouped_conv_loops.h"
#include "kernels/cpu/nn/im2col.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

constexpr DnnlPlanKind kBackpropInputPlan{"Conv2DBackpropInput"};
constexpr DnnlPlanKind kBackpropFilterPlan{"Conv2DBackpropFilter"};

// The primitive descriptor of backward convolution P (dnnl::convolution_backward_data or
// dnnl::convolution_backward_weights), whose descs take the same arguments; oneDNN builds it from
// the forward-training one as its hint.
template <typename P>
typename P::primitive_desc BackwardPrimitiveDesc(const ConvDescs& d) {
  return typename P::primitive_desc(
      typename P::desc(dnnl::algorithm::convolution_direct, d.src, d.any_weights, d.dst, d.strides,
                       d.dilates, d.pad_before, d.pad_after),
      DnnlEngine(), d.Forward(dnnl::prop_kind::forward_training));
}

// diff_src = backward_data(weights, diff_dst), with the HWIO weights reordered first when oneDNN
// wants blocked weights.
void BuildBackpropInputPlan(DnnlPlan& p, const ConvGeometry& g, dnnl::memory::data_type type) {
  const ConvDescs d(g, type);
  const auto pd = BackwardPrimitiveDesc<dnnl::convolution_backward_data>(d);
  p.AddBuffer(DNNL_ARG_DIFF_SRC, d.src, DnnlUse::kWrite);
  p.AddBuffer(DNNL_ARG_WEIGHTS, d.user_weights, DnnlUse::kRead);
  p.AddBuffer(DNNL_ARG_DIFF_DST, d.dst, DnnlUse::kRead);
  const dnnl::memory weights =
      WeightsInLayout(p, DNNL_ARG_WEIGHTS, d.user_weights, pd.weights_desc());
  p.AddStep(dnnl::convolution_backward_data(pd),
            {{DNNL_ARG_DIFF_DST, p.buffer(DNNL_ARG_DIFF_DST)},
             {DNNL_ARG_WEIGHTS, weights},
             {DNNL_ARG_DIFF_SRC, p.buffer(DNNL_ARG_DIFF_SRC)}});
}

// diff_weights = backward_weights(src, diff_dst), reordered into HWIO when oneDNN computes them
// in a blocked layout.
void BuildBackpropFilterPlan(DnnlPlan& p, const ConvGeometry& g, dnnl::memory::data_type type) {
  const ConvDescs d(g, type);
  const auto pd = BackwardPrimitiveDesc<dnnl::convolution_backward_weights>(d);
  p.AddBuffer(DNNL_ARG_SRC, d.src, DnnlUse::kRead);
  p.AddBuffer(DNNL_ARG_DIFF_DST, d.dst, DnnlUse::kRead);
  p.AddBuffer(DNNL_ARG_DIFF_WEIGHTS, d.user_weights, DnnlUse::kWrite);
  dnnl::memory weights = p.buffer(DNNL_ARG_DIFF_WEIGHTS);
  const bool reorder = pd.diff_weights_desc() != d.user_weights;
  if (reorder) weights = p.AddScratch(pd.diff_weights_desc());
  p.AddStep(dnnl::convolution_backward_weights(pd),
            {{DNNL_ARG_SRC, p.buffer(DNNL_ARG_SRC)},
             {DNNL_ARG_DIFF_DST, p.buffer(DNNL_ARG_DIFF_DST)},
             {DNNL_ARG_DIFF_WEIGHTS, weights}});
  if (reorder) {
    const dnnl::memory& user = p.buffer(DNNL_ARG_DIFF_WEIGHTS);
    p.AddStep(dnnl::reorder(weights, user), {{DNNL_ARG_FROM, weights}, {DNNL_ARG_TO, user}});
  }
}

absl::Status DnnlBackpropInput(KernelContext& ctx, const ConvGeometry& g) {
  return RunConvPlan(kBackpropInputPlan, BuildBackpropInputPlan, ctx.output(0).dtype(), g,
                     {{DNNL_ARG_WEIGHTS, ctx.input(1).raw_data()},
                      {DNNL_ARG_DIFF_DST, ctx.input(2).raw_data()},
                      {DNNL_ARG_DIFF_SRC, ctx.output(0).raw_data()}},
                     "convolution backward data");
}

absl::Status DnnlBackpropFilter(KernelContext& ctx, const ConvGeometry& g) {
  return RunConvPlan(kBackpropFilterPlan, BuildBackpropFilterPlan, ctx.output(0).dtype(), g,
                     {{DNNL_ARG_SRC, ctx.input(0).raw_data()},
                      {DNNL_ARG_DIFF_DST, ctx.input(2).raw_data()},
                      {DNNL_ARG_DIFF_WEIGHTS, ctx.output(0).raw_data()}},
                     "convolution backward weights");
}

// d input = col2im(d output [positions, out_c] x filter^T [out_c, patch]) per image.
absl::Status EigenBackpropInput(KernelContext& ctx, const ConvGeometry& g) {
  const int64_t patch = g.WindowCells() * g.in_c;
  const int64_t positions = g.OutCells();
  std::vector<double> col(positions * patch);
  const Eigen::Map<const RowMajorMatrix> filter(ctx.input(1).data<double>(), patch, g.out_c);
  const double* out_backprop = ctx.input(2).data<double>();
  double* output = ctx.output(0).mutable_data<double>();
  for (int64_t n = 0; n < g.batch; ++n) {
    Eigen::Map<RowMajorMatrix>(col.data(), positions, patch).noalias() =
        Eigen::Map<const RowMajorMatrix>(out_backprop + n * positions * g.out_c, positions,
                                         g.out_c) *
        filter.transpose();
    Col2Im(col.data(), g, output + n * g.InCells() * g.in_c);
  }
  return absl::OkStatus();
}

// d filter [patch, out_c] = sum over images of im2col(input)^T [patch, positions] x d output.
absl::Status EigenBackpropFilter(KernelContext& ctx, const ConvGeometry& g) {
  const int64_t patch = g.WindowCells() * g.in_c;
  const int64_t positions = g.OutCells();
  std::vector<double> col(positions * patch);
  const double* input = ctx.input(0).data<double>();
  const double* out_backprop = ctx.input(2).data<double>();
  Eigen::Map<RowMajorMatrix> filter(ctx.output(0).mutable_data<double>(), patch, g.out_c);
  filter.setZero();
  for (int64_t n = 0; n < g.batch; ++n) {
    Im2Col(input + n * g.InCells() * g.in_c, g, col.data());
    filter.noalias() += Eigen::Map<const RowMajorMatrix>(col.data(), positions, patch).transpose() *
                        Eigen::Map<const RowMajorMatrix>(out_backprop + n * positions * g.out_c,
                                                         positions, g.out_c);
  }
  return absl::OkStatus();
}

// Inputs: input_sizes, filter, out_backprop.
absl::Status BackpropInput(KernelContext& ctx, ConvKind kind) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  if (ctx.input(2).num_elements() == 0) {  // no output channels: empty sums
    std::memset(out.raw_data(), 0, out.nbytes());
    return absl::OkStatus();
  }
  const ConvGeometry g =
      MakeConvGeometry(ctx, kind, out.shape(), ctx.input(1).shape(), ctx.input(2).shape());
  if (out.dtype() != kFloat64) return DnnlBackpropInput(ctx, g);
  if (g.groups == 1) return EigenBackpropInput(ctx, g);
  GroupedConvBackpropInput(g, ctx.input(1).data<double>(), ctx.input(2).data<double>(),
                           out.mutable_data<double>());
  return absl::OkStatus();
}

// Inputs: input, filter_sizes, out_backprop.
absl::Status BackpropFilter(KernelContext& ctx, ConvKind kind) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  if (ctx.input(2).num_elements() == 0) {  // no batch or no output positions: empty sums
    std::memset(out.raw_data(), 0, out.nbytes());
    return absl::OkStatus();
  }
  const ConvGeometry g =
      MakeConvGeometry(ctx, kind, ctx.input(0).shape(), out.shape(), ctx.input(2).shape());
  if (out.dtype() != kFloat64) return DnnlBackpropFilter(ctx, g);
  if (g.groups == 1) return EigenBackpropFilter(ctx, g);
  GroupedConvBackpropFilter(g, ctx.input(0).data<double>(), ctx.input(2).data<double>(),
                            out.mutable_data<double>());
  return absl::OkStatus();
}

absl::Status BackpropInputKernel(KernelContext& ctx) {
  return BackpropInput(ctx, ConvKind::kConv2D);
}
absl::Status BackpropFilterKernel(KernelContext& ctx) {
  return BackpropFilter(ctx, ConvKind::kConv2D);
}
absl::Status Conv3DBackpropInputKernel(KernelContext& ctx) {
  return BackpropInput(ctx, ConvKind::kConv3D);
}
absl::Status Conv3DBackpropFilterKernel(KernelContext& ctx) {
  return BackpropFilter(ctx, ConvKind::kConv3D);
}
absl::Status DepthwiseBackpropInputKernel(KernelContext& ctx) {
  return BackpropInput(ctx, ConvKind::kDepthwise);
}
absl::Status DepthwiseBackpropFilterKernel(KernelContext& ctx) {
  return BackpropFilter(ctx, ConvKind::kDepthwise);
}

const KernelRegistrar kConv2DBackpropInput("Conv2DBackpropInput", DeviceType::kCpu,
                                           {kFloat32, kFloat64, kBFloat16},
                                           {ChannelsLast<BackpropInputKernel>});
const KernelRegistrar kConv2DBackpropFilter("Conv2DBackpropFilter", DeviceType::kCpu,
                                            {kFloat32, kFloat64, kBFloat16},
                                            {ChannelsLast<BackpropFilterKernel>});
const KernelRegistrar kDepthwiseConv2dNativeBackpropInput(
    "DepthwiseConv2dNativeBackpropInput", DeviceType::kCpu, {kFloat32, kFloat64, kBFloat16},
    {ChannelsLast<DepthwiseBackpropInputKernel>});
const KernelRegistrar kDepthwiseConv2dNativeBackpropFilter(
    "DepthwiseConv2dNativeBackpropFilter", DeviceType::kCpu, {kFloat32, kFloat64, kBFloat16},
    {ChannelsLast<DepthwiseBackpropFilterKernel>});

const KernelRegistrar kConv3DBackpropInputV2("Conv3DBackpropInputV2", DeviceType::kCpu,
                                             {kFloat32, kFloat64, kBFloat16},
                                             {Conv3DBackpropInputKernel});
const KernelRegistrar kConv3DBackpropFilterV2("Conv3DBackpropFilterV2", DeviceType::kCpu,
                                              {kFloat32, kFloat64, kBFloat16},
                                              {Conv3DBackpropFilterKernel});

}  // namespace
}  // namespace duet
