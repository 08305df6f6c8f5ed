#include "kernels/cpu/nn/conv_geometry.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "kernels/cpu/common/dnnl_engine.h"
#include "ops/nn/nn_attrs.h"

namespace duet {
namespace {

// Calls fn(position, tap, pixel) for every (output position, filter tap) pair whose input pixel
// is inside the image: row `position` (oh * out_w + ow) and column block `tap` (kh * k_w + kw) of
// the im2col matrix [out_h * out_w, k_h * k_w * in_c] read input pixel `pixel` (ih * in_w + iw).
// Im2Col and Col2Im share it so that the adjoint visits exactly the entries the gather wrote.
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

}  // namespace

ConvGeometry MakeConvGeometry(const KernelContext& ctx, const Shape& in, const Shape& filter,
                              const Shape& out) {
  const auto& strides = ctx.attr(ConvAttrs::kStrides);
  const auto& dilations = ctx.attr(ConvAttrs::kDilations);
  const auto& explicit_pads = ctx.attr(ConvAttrs::kExplicitPaddings);
  const bool is_explicit = ctx.attr(ConvAttrs::kPadding) == "EXPLICIT";
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

DnnlKey ConvDnnlKey(DType dtype, const ConvGeometry& g) {
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

ConvDescs::ConvDescs(const ConvGeometry& g, dnnl::memory::data_type type)
    : src({g.batch, g.in_c, g.in[0], g.in[1]}, type, dnnl::memory::format_tag::nhwc),
      dst({g.batch, g.out_c, g.out[0], g.out[1]}, type, dnnl::memory::format_tag::nhwc),
      user_weights({g.out_c, g.in_c, g.window[0], g.window[1]}, type,
                   dnnl::memory::format_tag::hwio),
      any_weights({g.out_c, g.in_c, g.window[0], g.window[1]}, type, dnnl::memory::format_tag::any),
      bias({g.out_c}, type, dnnl::memory::format_tag::x),
      strides{g.stride[0], g.stride[1]},
      dilates{g.dilation[0] - 1, g.dilation[1] - 1},  // oneDNN counts the gaps
      pad_before{g.pad[0].before, g.pad[1].before},
      pad_after{g.pad[0].after, g.pad[1].after} {}

dnnl::convolution_forward::primitive_desc ConvDescs::Forward(dnnl::prop_kind kind) const {
  return dnnl::convolution_forward::primitive_desc(
      dnnl::convolution_forward::desc(kind, dnnl::algorithm::convolution_direct, src, any_weights,
                                      dst, strides, dilates, pad_before, pad_after),
      DnnlEngine());
}

dnnl::convolution_forward::primitive_desc ConvDescs::ForwardWithBias(
    dnnl::prop_kind kind, const dnnl::primitive_attr& attr) const {
  return dnnl::convolution_forward::primitive_desc(
      dnnl::convolution_forward::desc(kind, dnnl::algorithm::convolution_direct, src, any_weights,
                                      bias, dst, strides, dilates, pad_before, pad_after),
      attr, DnnlEngine());
}

dnnl::memory WeightsInLayout(DnnlPlan& p, int slot, const dnnl::memory::desc& user,
                             const dnnl::memory::desc& wanted) {
  const dnnl::memory weights = p.buffer(slot);
  if (wanted == user) return weights;
  dnnl::memory reordered = p.AddScratch(wanted);
  p.AddStep(dnnl::reorder(weights, reordered),
            {{DNNL_ARG_FROM, weights}, {DNNL_ARG_TO, reordered}});
  return reordered;
}

absl::Status RunConvPlan(const DnnlPlanKind& kind, ConvPlanBuilder build, DType dtype,
                         const ConvGeometry& g,
                         std::initializer_list<std::pair<int, const void*>> bindings,
                         absl::string_view what, absl::Span<const int64_t> key_extra) {
  DnnlKey key = ConvDnnlKey(dtype, g);
  key.insert(key.end(), key_extra.begin(), key_extra.end());
  DUET_ASSIGN_OR_RETURN(
      DnnlPlan * plan,
      CachedDnnlPlan(kind, key, dtype,
                     [&](DnnlPlan& p, dnnl::memory::data_type type) { build(p, g, type); }));
  for (const auto& [slot, data] : bindings) plan->Bind(slot, data, dtype);
  return plan->Run(absl::StrCat(what, " ", DTypeName(dtype)));
}

void Im2Col(const double* image, const ConvGeometry& g, double* col) {
  const int64_t c = g.in_c, patch = g.window[0] * g.window[1] * c;
  std::fill(col, col + g.out[0] * g.out[1] * patch, 0.0);
  ForEachPatchPixel(g, [&](int64_t position, int64_t tap, int64_t pixel) {
    std::copy_n(image + pixel * c, c, col + position * patch + tap * c);
  });
}

void Col2Im(const double* col, const ConvGeometry& g, double* image) {
  const int64_t c = g.in_c, patch = g.window[0] * g.window[1] * c;
  std::fill(image, image + g.in[0] * g.in[1] * c, 0.0);
  ForEachPatchPixel(g, [&](int64_t position, int64_t tap, int64_t pixel) {
    const double* from = col + position * patch + tap * c;
    double* to = image + pixel * c;
    for (int64_t k = 0; k < c; ++k) to[k] += from[k];
  });
}

}  // namespace duet
