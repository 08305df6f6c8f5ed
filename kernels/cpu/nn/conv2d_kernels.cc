// Conv2D on the CPU: oneDNN's convolution for float32 and bfloat16 (NHWC activations; HWIO
// weights reordered into the layout oneDNN prefers), im2col + Eigen GEMM for float64.
#include <Eigen/Dense>
#include <cstring>
#include <vector>

#include "kernels/cpu/common/dnnl_plan.h"
#include "kernels/cpu/nn/conv_geometry.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

constexpr DnnlPlanKind kConv2DPlan{"Conv2D"};

// Builds convolution (and, when oneDNN wants blocked weights, a weights reorder before it).
void BuildConvPlan(DnnlPlan& p, const ConvGeometry& g, dnnl::memory::data_type type) {
  const ConvDescs d(g, type);
  const dnnl::convolution_forward::primitive_desc pd =
      d.Forward(dnnl::prop_kind::forward_inference);
  p.AddBuffer(DNNL_ARG_SRC, d.src);
  p.AddBuffer(DNNL_ARG_WEIGHTS, d.user_weights);
  p.AddBuffer(DNNL_ARG_DST, d.dst);
  const dnnl::memory weights =
      WeightsInLayout(p, DNNL_ARG_WEIGHTS, d.user_weights, pd.weights_desc());
  p.AddStep(dnnl::convolution_forward(pd), {{DNNL_ARG_SRC, p.buffer(DNNL_ARG_SRC)},
                                            {DNNL_ARG_WEIGHTS, weights},
                                            {DNNL_ARG_DST, p.buffer(DNNL_ARG_DST)}});
}

absl::Status DnnlConv2D(KernelContext& ctx, const ConvGeometry& g) {
  return RunConvPlan(kConv2DPlan, BuildConvPlan, ctx.input(0).dtype(), g,
                     {{DNNL_ARG_SRC, ctx.input(0).raw_data()},
                      {DNNL_ARG_WEIGHTS, ctx.input(1).raw_data()},
                      {DNNL_ARG_DST, ctx.output(0).raw_data()}},
                     "convolution");
}

// output [positions, out_c] = im2col(input) [positions, patch] x filter [patch, out_c] per image.
absl::Status EigenConv2D(KernelContext& ctx, const ConvGeometry& g) {
  const int64_t patch = g.window[0] * g.window[1] * g.in_c;
  const int64_t positions = g.out[0] * g.out[1];
  std::vector<double> col(positions * patch);
  const double* input = ctx.input(0).data<double>();
  double* output = ctx.output(0).mutable_data<double>();
  const Eigen::Map<const RowMajorMatrix> filter(ctx.input(1).data<double>(), patch, g.out_c);
  for (int64_t n = 0; n < g.batch; ++n) {
    Im2Col(input + n * g.in[0] * g.in[1] * g.in_c, g, col.data());
    const Eigen::Map<const RowMajorMatrix> patches(col.data(), positions, patch);
    Eigen::Map<RowMajorMatrix>(output + n * positions * g.out_c, positions, g.out_c).noalias() =
        patches * filter;
  }
  return absl::OkStatus();
}

absl::Status Conv2DKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const ConvGeometry g =
      MakeConvGeometry(ctx, ctx.input(0).shape(), ctx.input(1).shape(), out.shape());
  if (g.in_c == 0) {  // empty sums: zeros
    std::memset(out.raw_data(), 0, out.nbytes());
    return absl::OkStatus();
  }
  if (out.dtype() == kFloat64) return EigenConv2D(ctx, g);
  return DnnlConv2D(ctx, g);
}

const KernelRegistrar kConv2D("Conv2D", DeviceType::kCpu, {kFloat32, kFloat64, kBFloat16},
                              {Conv2DKernel});

}  // namespace
}  // namespace duet
