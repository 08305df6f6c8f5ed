// Conv2D on the CPU: oneDNN's convolution for float32 and bfloat16 (NHWC activations; HWIO
// weights reordered into the layout oneDNN prefers), im2col + Eigen GEMM for float64.
#include <Eigen/Dense>
#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/common/dnnl_engine.h"
#include "kernels/cpu/common/dnnl_plan.h"
#include "kernels/cpu/common/window_geometry.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

// Attr positions declared in ops/nn/conv_ops.cc (tests/ops/nn/attr_positions_test.cc checks).
enum Conv2DAttr {
  kConv2DStrides = 1,
  kConv2DPadding = 3,
  kConv2DExplicitPaddings = 4,
  kConv2DDilations = 6
};

// Sizes of one Conv2D call; the arrays are [height, width].
struct ConvGeometry {
  int64_t batch = 0, in_c = 0, out_c = 0;
  int64_t in[2] = {}, window[2] = {}, out[2] = {}, stride[2] = {}, dilation[2] = {};
  WindowPadding pad[2];
};

ConvGeometry Geometry(KernelContext& ctx) {
  const Shape& in = ctx.input(0).shape();
  const Shape& filter = ctx.input(1).shape();
  const Shape& out = ctx.output(0).shape();
  const auto& strides = ctx.attr<std::vector<int64_t>>(kConv2DStrides);
  const auto& dilations = ctx.attr<std::vector<int64_t>>(kConv2DDilations);
  const auto& explicit_pads = ctx.attr<std::vector<int64_t>>(kConv2DExplicitPaddings);
  const bool is_explicit = ctx.attr<std::string>(kConv2DPadding) == "EXPLICIT";
  ConvGeometry g;
  g.batch = in[0];
  g.in_c = in[3];
  g.out_c = filter[3];
  for (int d = 0; d < 2; ++d) {
    g.in[d] = in[1 + d];
    g.window[d] = filter[d];
    g.out[d] = out[1 + d];
    g.stride[d] = strides[1 + d];
    g.dilation[d] = dilations[1 + d];
    g.pad[d] = is_explicit
                   ? WindowPadding{explicit_pads[2 + 2 * d], explicit_pads[3 + 2 * d]}
                   : SameOrValidPadding(g.in[d], g.out[d], g.window[d], g.stride[d], g.dilation[d]);
  }
  return g;
}

constexpr DnnlPlanKind kConv2DPlan{"Conv2D"};

// Builds convolution (and, when oneDNN wants blocked weights, a weights reorder before it).
void BuildConvPlan(DnnlPlan& p, const ConvGeometry& g, dnnl::memory::data_type type) {
  using dnnl::memory;
  const memory::desc src({g.batch, g.in_c, g.in[0], g.in[1]}, type, memory::format_tag::nhwc);
  const memory::desc dst({g.batch, g.out_c, g.out[0], g.out[1]}, type, memory::format_tag::nhwc);
  const memory::desc user_weights({g.out_c, g.in_c, g.window[0], g.window[1]}, type,
                                  memory::format_tag::hwio);
  const memory::desc any_weights({g.out_c, g.in_c, g.window[0], g.window[1]}, type,
                                 memory::format_tag::any);
  const dnnl::convolution_forward::primitive_desc pd(
      dnnl::convolution_forward::desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src, any_weights,
          dst, {g.stride[0], g.stride[1]}, {g.dilation[0] - 1, g.dilation[1] - 1},
          {g.pad[0].before, g.pad[1].before}, {g.pad[0].after, g.pad[1].after}),
      DnnlEngine());
  p.AddBuffer(DNNL_ARG_SRC, src);
  p.AddBuffer(DNNL_ARG_WEIGHTS, user_weights);
  p.AddBuffer(DNNL_ARG_DST, dst);
  dnnl::memory weights = p.buffer(DNNL_ARG_WEIGHTS);
  if (pd.weights_desc() != user_weights) {
    dnnl::memory reordered = p.AddScratch(pd.weights_desc());
    p.AddStep(dnnl::reorder(weights, reordered),
              {{DNNL_ARG_FROM, weights}, {DNNL_ARG_TO, reordered}});
    weights = reordered;
  }
  p.AddStep(dnnl::convolution_forward(pd), {{DNNL_ARG_SRC, p.buffer(DNNL_ARG_SRC)},
                                            {DNNL_ARG_WEIGHTS, weights},
                                            {DNNL_ARG_DST, p.buffer(DNNL_ARG_DST)}});
}

absl::Status DnnlConv2D(KernelContext& ctx, const ConvGeometry& g) {
  const DType dtype = ctx.input(0).dtype();
  const DnnlKey key = {static_cast<int64_t>(dtype),
                       g.batch,
                       g.in_c,
                       g.out_c,
                       g.in[0],
                       g.in[1],
                       g.window[0],
                       g.window[1],
                       g.out[0],
                       g.out[1],
                       g.stride[0],
                       g.stride[1],
                       g.dilation[0],
                       g.dilation[1],
                       g.pad[0].before,
                       g.pad[0].after,
                       g.pad[1].before,
                       g.pad[1].after};
  DUET_ASSIGN_OR_RETURN(DnnlPlan * plan, CachedDnnlPlan(kConv2DPlan, key, [&](DnnlPlan& p) {
                          BuildConvPlan(p, g, *ToDnnlType(dtype));
                        }));
  plan->Bind(DNNL_ARG_SRC, ctx.input(0).raw_data());
  plan->Bind(DNNL_ARG_WEIGHTS, ctx.input(1).raw_data());
  plan->Bind(DNNL_ARG_DST, ctx.output(0).raw_data());
  return plan->Run(absl::StrCat("convolution ", DTypeName(dtype)));
}

using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Gathers one image's input windows into rows [out_h * out_w, k_h * k_w * in_c] (padding as
// zeros), so that the convolution is one GEMM with the HWIO filter viewed as
// [k_h * k_w * in_c, out_c].
void Im2Col(const double* image, const ConvGeometry& g, double* col) {
  const int64_t c = g.in_c;
  for (int64_t oh = 0; oh < g.out[0]; ++oh) {
    for (int64_t ow = 0; ow < g.out[1]; ++ow) {
      for (int64_t kh = 0; kh < g.window[0]; ++kh) {
        const int64_t ih = oh * g.stride[0] - g.pad[0].before + kh * g.dilation[0];
        for (int64_t kw = 0; kw < g.window[1]; ++kw, col += c) {
          const int64_t iw = ow * g.stride[1] - g.pad[1].before + kw * g.dilation[1];
          if (ih < 0 || ih >= g.in[0] || iw < 0 || iw >= g.in[1]) {
            std::fill(col, col + c, 0.0);
          } else {
            std::copy_n(image + (ih * g.in[1] + iw) * c, c, col);
          }
        }
      }
    }
  }
}

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
  const ConvGeometry g = Geometry(ctx);
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
