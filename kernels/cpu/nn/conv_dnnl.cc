#include "kernels/cpu/nn/conv_dnnl.h"

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "kernels/cpu/common/dnnl_engine.h"

namespace duet {

DnnlKey ConvDnnlKey(DType dtype, const ConvGeometry& g) {
  return {static_cast<int64_t>(dtype),
          g.batch,
          g.in_c,
          g.out_c,
          g.groups,
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

namespace {

// oneDNN's weights dims of `g`: {out, in, h, w}, or {groups, out / groups, in / groups, h, w} for a
// grouped convolution.
dnnl::memory::dims WeightsDims(const ConvGeometry& g) {
  if (g.groups == 1) return {g.out_c, g.in_c, g.window[0], g.window[1]};
  return {g.groups, g.out_c / g.groups, g.in_c / g.groups, g.window[0], g.window[1]};
}

}  // namespace

// Note [Grouped convolution weights]
// duet's filters are [h, w, in / groups, out] with output channel k in group k / (out / groups):
// HWIO for Conv2D, and DepthwiseConv2dNative's [h, w, in, multiplier] read with in / groups = 1.
// In oneDNN's grouped dims {g, o, i, h, w} that memory order is h, w, i, g, o: format tag hwigo,
// so the user's weights need no reorder of their own.
ConvDescs::ConvDescs(const ConvGeometry& g, dnnl::memory::data_type type)
    : src({g.batch, g.in_c, g.in[0], g.in[1]}, type, dnnl::memory::format_tag::nhwc),
      dst({g.batch, g.out_c, g.out[0], g.out[1]}, type, dnnl::memory::format_tag::nhwc),
      user_weights(
          WeightsDims(g), type,
          g.groups == 1 ? dnnl::memory::format_tag::hwio : dnnl::memory::format_tag::hwigo),
      any_weights(WeightsDims(g), type, dnnl::memory::format_tag::any),
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
  if (wanted == user) return p.buffer(slot);
  return p.AddCachedReorder(slot, wanted);
}

absl::Status RunConvPlan(const DnnlPlanKind& kind, ConvPlanBuilder build, DType dtype,
                         const ConvGeometry& g,
                         absl::Span<const std::pair<int, const void*>> bindings,
                         absl::string_view what, absl::Span<const int64_t> key_extra,
                         const Tensor* weights) {
  DnnlKey key = ConvDnnlKey(dtype, g);
  key.insert(key.end(), key_extra.begin(), key_extra.end());
  DUET_ASSIGN_OR_RETURN(
      DnnlPlan * plan,
      CachedDnnlPlan(kind, key, dtype,
                     [&](DnnlPlan& p, dnnl::memory::data_type type) { build(p, g, type); }));
  for (const auto& [slot, data] : bindings) plan->Bind(slot, data, dtype);
  if (weights != nullptr) plan->Bind(DNNL_ARG_WEIGHTS, *weights);
  return plan->Run(absl::StrCat(what, " ", DTypeName(dtype)));
}

}  // namespace duet
