// The oneDNN side of the CPU convolution kernels (Conv2D, Conv2DBackpropInput,
// Conv2DBackpropFilter, _FusedConv2D, the grouped convolutions of DepthwiseConv2dNative and its
// backprops, Conv3D and its backprops): the plan key, memory descriptors and plan runner built on a
// ConvGeometry (kernels/common/conv_geometry.h).
#pragma once

#include <cstdint>
#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/dtype.h"
#include "kernels/common/conv_geometry.h"
#include "kernels/cpu/common/dnnl_plan.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace duet {

// Everything a oneDNN convolution plan of `dtype` over `g` depends on.
DnnlKey ConvDnnlKey(DType dtype, const ConvGeometry& g);

// The oneDNN memory descriptors and convolution parameters of `g`: NHWC (NDHWC) activations, the
// user's HWIO (DHWIO) weights (grouped weights when g.groups > 1: Note [Grouped convolution
// weights] in conv_dnnl.cc) and `any_weights`, which lets oneDNN pick the layout it runs fastest
// on, and a bias of one value per output channel.
struct ConvDescs {
  dnnl::memory::desc src, dst, user_weights, any_weights, bias;
  dnnl::memory::dims strides, dilates, pad_before, pad_after;

  ConvDescs(const ConvGeometry& g, dnnl::memory::data_type type);

  // The forward convolution: the primitive of Conv2D (forward_inference), and the hint that
  // oneDNN requires to build the backward ones (forward_training).
  dnnl::convolution_forward::primitive_desc Forward(dnnl::prop_kind kind) const;
  // The forward convolution that adds `bias` and then runs the post-ops of `attr`
  // (_FusedConv2D).
  dnnl::convolution_forward::primitive_desc ForwardWithBias(dnnl::prop_kind kind,
                                                            const dnnl::primitive_attr& attr) const;
};

// The weights memory for a primitive that reads the HWIO weights of buffer `slot` (layout `user`)
// and wants them in layout `wanted`: the buffer itself when the layouts match, else a scratch
// memory filled from it by a reorder step added now, so that it runs before the steps added next
// (a cached reorder: Note [Cached weight reorders] in kernels/cpu/common/dnnl_plan.cc).
dnnl::memory WeightsInLayout(DnnlPlan& p, int slot, const dnnl::memory::desc& user,
                             const dnnl::memory::desc& wanted);

// Builds the oneDNN steps of one convolution kernel for `g` in the given oneDNN data type (f32 for
// bfloat16 data where the CPU lacks bfloat16: Note [Reduced precision without oneDNN support] in
// kernels/cpu/common/dnnl_plan.cc).
using ConvPlanBuilder =
    absl::FunctionRef<void(DnnlPlan& p, const ConvGeometry& g, dnnl::memory::data_type type)>;

// Runs this thread's plan of `kind` for the `dtype` convolution `g` (built with `build` on first
// use) with each (slot, data of `dtype`) of `bindings` bound; errors name "`what` `dtype`". A
// builder that depends on more than `g` and `dtype` (e.g. fused post-ops) passes that as
// `key_extra`. A forward convolution passes its filter as `weights` (bound to DNNL_ARG_WEIGHTS
// after `bindings`), so that its reordered copy can be reused.
absl::Status RunConvPlan(const DnnlPlanKind& kind, ConvPlanBuilder build, DType dtype,
                         const ConvGeometry& g,
                         absl::Span<const std::pair<int, const void*>> bindings,
                         absl::string_view what, absl::Span<const int64_t> key_extra = {},
                         const Tensor* weights = nullptr);

}  // namespace duet
