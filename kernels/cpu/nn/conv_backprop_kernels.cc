// Conv2DBackpropInput and Conv2DBackpropFilter on the CPU: oneDNN's backward-data and
// backward-weights convolutions for float32 and bfloat16 (NHWC activations, HWIO weights reordered
// to and from the layout oneDNN prefers), im2col/col2im + Eigen GEMM for float64 (oneDNN 2.6 has
// no f64).
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

// Attr positions declared in ops/nn/conv_backprop_ops.cc (tests/ops/nn/attr_positions_test.cc
// checks them).
enum ConvBackpropAttr {
  kConvStrides = 1,
  kConvPadding = 3,
  kConvExplicitPaddings = 4,
  kConvDilations = 6
};

// Sizes of the Conv2D whose gradient is computed; the arrays are [height, width].
struct ConvGeometry {
  int64_t batch = 0, in_c = 0, out_c = 0;
  int64_t in[2] = {}, window[2] = {}, out[2] = {}, stride[2] = {}, dilation[2] = {};
  WindowPadding pad[2];
};

// `in`, `filter`, `out`: the Conv2D's input, filter and output shapes (the shape functions
// checked that they fit together).
ConvGeometry Geometry(const KernelContext& ctx, const Shape& in, const Shape& filter,
                      const Shape& out) {
  const auto& strides = ctx.attr<std::vector<int64_t>>(kConvStrides);
  const auto& dilations = ctx.attr<std::vector<int64_t>>(kConvDilations);
  const auto& explicit_pads = ctx.attr<std::vector<int64_t>>(kConvExplicitPaddings);
  const bool is_explicit = ctx.attr<std::string>(kConvPadding) == "EXPLICIT";
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

DnnlKey Key(DType dtype, const ConvGeometry& g) {
  return {static_cast<int64_t>(dtype),
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
}

// The memory descriptors of a Conv2D and the forward primitive descriptor the backward ones take
// as their hint.
struct ConvDescs {
  dnnl::memory::desc src, dst, user_weights, any_weights;
  dnnl::memory::dims strides, dilates, pad_before, pad_after;

  ConvDescs(const ConvGeometry& g, dnnl::memory::data_type type)
      : src({g.batch, g.in_c, g.in[0], g.in[1]}, type, dnnl::memory::format_tag::nhwc),
        dst({g.batch, g.out_c, g.out[0], g.out[1]}, type, dnnl::memory::format_tag::nhwc),
        user_weights({g.out_c, g.in_c, g.window[0], g.window[1]}, type,
                     dnnl::memory::format_tag::hwio),
        any_weights({g.out_c, g.in_c, g.window[0], g.window[1]}, type,
                    dnnl::memory::format_tag::any),
        strides{g.stride[0], g.stride[1]},
        dilates{g.dilation[0] - 1, g.dilation[1] - 1},  // oneDNN counts the gaps
        pad_before{g.pad[0].before, g.pad[1].before},
        pad_after{g.pad[0].after, g.pad[1].after} {}

  dnnl::convolution_forward::primitive_desc Forward() const {
    return dnnl::convolution_forward::primitive_desc(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training,
                                        dnnl::algorithm::convolution_direct, src, any_weights, dst,
                                        strides, dilates, pad_before, pad_after),
        DnnlEngine());
  }
};

constexpr DnnlPlanKind kBackpropInputPlan{"Conv2DBackpropInput"};
constexpr DnnlPlanKind kBackpropFilterPlan{"Conv2DBackpropFilter"};

// diff_src = backward_data(weights, diff_dst), with the HWIO weights reordered first when oneDNN
// wants blocked weights.
void BuildBackpropInputPlan(DnnlPlan& p, const ConvGeometry& g, dnnl::memory::data_type type) {
  const ConvDescs d(g, type);
  const dnnl::convolution_backward_data::primitive_desc pd(
      dnnl::convolution_backward_data::desc(dnnl::algorithm::convolution_direct, d.src,
                                            d.any_weights, d.dst, d.strides, d.dilates,
                                            d.pad_before, d.pad_after),
      DnnlEngine(), d.Forward());
  p.AddBuffer(DNNL_ARG_DIFF_SRC, d.src);
  p.AddBuffer(DNNL_ARG_WEIGHTS, d.user_weights);
  p.AddBuffer(DNNL_ARG_DIFF_DST, d.dst);
  dnnl::memory weights = p.buffer(DNNL_ARG_WEIGHTS);
  if (pd.weights_desc() != d.user_weights) {
    dnnl::memory reordered = p.AddScratch(pd.weights_desc());
    p.AddStep(dnnl::reorder(weights, reordered),
              {{DNNL_ARG_FROM, weights}, {DNNL_ARG_TO, reordered}});
    weights = reordered;
  }
  p.AddStep(dnnl::convolution_backward_data(pd),
            {{DNNL_ARG_DIFF_DST, p.buffer(DNNL_ARG_DIFF_DST)},
             {DNNL_ARG_WEIGHTS, weights},
             {DNNL_ARG_DIFF_SRC, p.buffer(DNNL_ARG_DIFF_SRC)}});
}

// diff_weights = backward_weights(src, diff_dst), reordered into HWIO when oneDNN computes them
// in a blocked layout.
void BuildBackpropFilterPlan(DnnlPlan& p, const ConvGeometry& g, dnnl::memory::data_type type) {
  const ConvDescs d(g, type);
  const dnnl::convolution_backward_weights::primitive_desc pd(
      dnnl::convolution_backward_weights::desc(dnnl::algorithm::convolution_direct, d.src,
                                               d.any_weights, d.dst, d.strides, d.dilates,
                                               d.pad_before, d.pad_after),
      DnnlEngine(), d.Forward());
  p.AddBuffer(DNNL_ARG_SRC, d.src);
  p.AddBuffer(DNNL_ARG_DIFF_DST, d.dst);
  p.AddBuffer(DNNL_ARG_DIFF_WEIGHTS, d.user_weights);
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
  const DType dtype = ctx.output(0).dtype();
  DUET_ASSIGN_OR_RETURN(DnnlPlan * plan,
                        CachedDnnlPlan(kBackpropInputPlan, Key(dtype, g), [&](DnnlPlan& p) {
                          BuildBackpropInputPlan(p, g, *ToDnnlType(dtype));
                        }));
  plan->Bind(DNNL_ARG_WEIGHTS, ctx.input(1).raw_data());
  plan->Bind(DNNL_ARG_DIFF_DST, ctx.input(2).raw_data());
  plan->Bind(DNNL_ARG_DIFF_SRC, ctx.output(0).raw_data());
  return plan->Run(absl::StrCat("convolution backward data ", DTypeName(dtype)));
}

absl::Status DnnlBackpropFilter(KernelContext& ctx, const ConvGeometry& g) {
  const DType dtype = ctx.output(0).dtype();
  DUET_ASSIGN_OR_RETURN(DnnlPlan * plan,
                        CachedDnnlPlan(kBackpropFilterPlan, Key(dtype, g), [&](DnnlPlan& p) {
                          BuildBackpropFilterPlan(p, g, *ToDnnlType(dtype));
                        }));
  plan->Bind(DNNL_ARG_SRC, ctx.input(0).raw_data());
  plan->Bind(DNNL_ARG_DIFF_DST, ctx.input(2).raw_data());
  plan->Bind(DNNL_ARG_DIFF_WEIGHTS, ctx.output(0).raw_data());
  return plan->Run(absl::StrCat("convolution backward weights ", DTypeName(dtype)));
}

using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Calls fn(position, tap, pixel) for every (output position, filter tap) pair whose input pixel
// is inside the image: row `position` (oh * out_w + ow) and column block `tap` (kh * k_w + kw) of
// the im2col matrix [out_h * out_w, k_h * k_w * in_c] read input pixel `pixel` (ih * in_w + iw).
template <typename Fn>
void ForEachPatchPixel(const ConvGeometry& g, Fn&& fn) {
  for (int64_t oh = 0; oh < g.out[0]; ++oh) {
    for (int64_t ow = 0; ow < g.out[1]; ++ow) {
      const int64_t position = oh * g.out[1] + ow;
      for (int64_t kh = 0; kh < g.window[0]; ++kh) {
        const int64_t ih = oh * g.stride[0] - g.pad[0].before + kh * g.dilation[0];
        if (ih < 0 || ih >= g.in[0]) continue;
        for (int64_t kw = 0; kw < g.window[1]; ++kw) {
          const int64_t iw = ow * g.stride[1] - g.pad[1].before + kw * g.dilation[1];
          if (iw < 0 || iw >= g.in[1]) continue;
          fn(position, kh * g.window[1] + kw, ih * g.in[1] + iw);
        }
      }
    }
  }
}

// One image's input windows as rows (padding as zeros), so that Conv2D is one GEMM with the HWIO
// filter viewed as [k_h * k_w * in_c, out_c].
void Im2Col(const double* image, const ConvGeometry& g, double* col) {
  const int64_t c = g.in_c, patch = g.window[0] * g.window[1] * c;
  std::fill(col, col + g.out[0] * g.out[1] * patch, 0.0);
  ForEachPatchPixel(g, [&](int64_t position, int64_t tap, int64_t pixel) {
    std::copy_n(image + pixel * c, c, col + position * patch + tap * c);
  });
}

// The adjoint of Im2Col: adds every im2col entry back onto the pixel it was read from.
void Col2Im(const double* col, const ConvGeometry& g, double* image) {
  const int64_t c = g.in_c, patch = g.window[0] * g.window[1] * c;
  std::fill(image, image + g.in[0] * g.in[1] * c, 0.0);
  ForEachPatchPixel(g, [&](int64_t position, int64_t tap, int64_t pixel) {
    const double* from = col + position * patch + tap * c;
    double* to = image + pixel * c;
    for (int64_t k = 0; k < c; ++k) to[k] += from[k];
  });
}

// d input = col2im(d output [positions, out_c] x filter^T [out_c, patch]) per image.
absl::Status EigenBackpropInput(KernelContext& ctx, const ConvGeometry& g) {
  const int64_t patch = g.window[0] * g.window[1] * g.in_c;
  const int64_t positions = g.out[0] * g.out[1];
  std::vector<double> col(positions * patch);
  const Eigen::Map<const RowMajorMatrix> filter(ctx.input(1).data<double>(), patch, g.out_c);
  const double* out_backprop = ctx.input(2).data<double>();
  double* output = ctx.output(0).mutable_data<double>();
  for (int64_t n = 0; n < g.batch; ++n) {
    Eigen::Map<RowMajorMatrix>(col.data(), positions, patch).noalias() =
        Eigen::Map<const RowMajorMatrix>(out_backprop + n * positions * g.out_c, positions,
                                         g.out_c) *
        filter.transpose();
    Col2Im(col.data(), g, output + n * g.in[0] * g.in[1] * g.in_c);
  }
  return absl::OkStatus();
}

// d filter [patch, out_c] = sum over images of im2col(input)^T [patch, positions] x d output.
absl::Status EigenBackpropFilter(KernelContext& ctx, const ConvGeometry& g) {
  const int64_t patch = g.window[0] * g.window[1] * g.in_c;
  const int64_t positions = g.out[0] * g.out[1];
  std::vector<double> col(positions * patch);
  const double* input = ctx.input(0).data<double>();
  const double* out_backprop = ctx.input(2).data<double>();
  Eigen::Map<RowMajorMatrix> filter(ctx.output(0).mutable_data<double>(), patch, g.out_c);
  filter.setZero();
  for (int64_t n = 0; n < g.batch; ++n) {
    Im2Col(input + n * g.in[0] * g.in[1] * g.in_c, g, col.data());
    filter.noalias() += Eigen::Map<const RowMajorMatrix>(col.data(), positions, patch).transpose() *
                        Eigen::Map<const RowMajorMatrix>(out_backprop + n * positions * g.out_c,
                                                         positions, g.out_c);
  }
  return absl::OkStatus();
}

// Inputs: input_sizes, filter, out_backprop.
absl::Status BackpropInputKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  if (ctx.input(2).num_elements() == 0) {  // no output channels: empty sums
    std::memset(out.raw_data(), 0, out.nbytes());
    return absl::OkStatus();
  }
  const ConvGeometry g = Geometry(ctx, out.shape(), ctx.input(1).shape(), ctx.input(2).shape());
  if (out.dtype() == kFloat64) return EigenBackpropInput(ctx, g);
  return DnnlBackpropInput(ctx, g);
}

// Inputs: input, filter_sizes, out_backprop.
absl::Status BackpropFilterKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  if (ctx.input(2).num_elements() == 0) {  // no batch or no output positions: empty sums
    std::memset(out.raw_data(), 0, out.nbytes());
    return absl::OkStatus();
  }
  const ConvGeometry g = Geometry(ctx, ctx.input(0).shape(), out.shape(), ctx.input(2).shape());
  if (out.dtype() == kFloat64) return EigenBackpropFilter(ctx, g);
  return DnnlBackpropFilter(ctx, g);
}

const KernelRegistrar kConv2DBackpropInput("Conv2DBackpropInput", DeviceType::kCpu,
                                           {kFloat32, kFloat64, kBFloat16}, {BackpropInputKernel});
const KernelRegistrar kConv2DBackpropFilter("Conv2DBackpropFilter", DeviceType::kCpu,
                                            {kFloat32, kFloat64, kBFloat16},
                                            {BackpropFilterKernel});

}  // namespace
}  // namespace duet
