#include "kernels/cpu/nn/conv_dnnl.h"

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "kernels/cpu/common/dnnl_engine.h"

namespace duet {

DnnlKey ConvDnnlKey(DType dtype, const ConvGeometry& g) {
  DnnlKey key = {static_cast<int64_t>(dtype), g.rank, g.batch, g.in_c, g.out_c, g.groups};
  for (int d = 0; d < g.rank; ++d) {
    for (int64_t v : {g.in[d], g.window[d], g.out[d], g.stride[d], g.dilation[d], g.pad[d].before,
                      g.pad[d].after}) {
      key.push_back(v);
    }
  }
  return key;
}

namespace {

using dnnl::memory;

// The first g.rank entries of the per-spatial-dim array `values`, minus `minus`.
memory::dims Spatial(const ConvGeometry& g, const int64_t* values, int64_t minus = 0) {
  memory::dims dims;
  for (int d = 0; d < g.rank; ++d) dims.push_back(values[d] - minus);
  return dims;
}

// oneDNN's dims of an activation: {batch, channels, spatial...}.
memory::dims ActivationDims(const ConvGeometry& g, int64_t channels, const int64_t* spatial) {
  memory::dims dims = {g.batch, channels};
  const memory::dims s = Spatial(g, spatial);
  dims.insert(dims.end(), s.begin(), s.end());
  return dims;
}

// oneDNN's weights dims of `g`: {out, in, spatial...}, or {groups, out / groups, in / groups,
// spatial...} for a grouped convolution.
memory::dims WeightsDims(const ConvGeometry& g) {
  memory::dims dims = g.groups == 1 ? memory::dims{g.out_c, g.in_c}
                                    : memory::dims{g.groups, g.out_c / g.groups, g.in_c / g.groups};
  const memory::dims s = Spatial(g, g.window);
  dims.insert(dims.end(), s.begin(), s.end());
  return dims;
}

// The format tag of the user's weights (Note [Grouped convolution weights]); Conv3D is never
// grouped.
memory::format_tag UserWeightsTag(const ConvGeometry& g) {
  if (g.rank == 3) return memory::format_tag::dhwio;
  return g.groups == 1 ? memory::format_tag::hwio : memory::format_tag::hwigo;
}

}  // namespace

// Note [Grouped convolution weights]
// duet's filters are [h, w, in / groups, out] with output channel k in group k / (out / groups):
// HWIO for Conv2D (grouped when the input has a multiple of the filter's in_channels, Note
// [Grouped Conv2D] in ops/nn/conv_shape.cc), and DepthwiseConv2dNative's [h, w, in, multiplier]
// read with in / groups = 1.
// In oneDNN's grouped dims {g, o, i, h, w} that memory order is h, w, i, g, o: format tag hwigo,
// so the user's weights need no reorder of their own.
ConvDescs::ConvDescs(const ConvGeometry& g, memory::data_type type)
    : src(ActivationDims(g, g.in_c, g.in), type,
          g.rank == 3 ? memory::format_tag::ndhwc : memory::format_tag::nhwc),
      dst(ActivationDims(g, g.out_c, g.out), type,
          g.rank == 3 ? memory::format_tag::ndhwc : memory::format_tag::nhwc),
      user_weights(WeightsDims(g), type, UserWeightsTag(g)),
      any_weights(WeightsDims(g), type, memory::format_tag::any),
      bias({g.out_c}, type, memory::format_tag::x),
      strides(Spatial(g, g.stride)),
      dilates(Spatial(g, g.dilation, 1)) {  // oneDNN counts the gaps
  for (int d = 0; d < g.rank; ++d) {
    pad_before.push_back(g.pad[d].before);
    pad_after.push_back(g.pad[d].after);
  }
}

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
