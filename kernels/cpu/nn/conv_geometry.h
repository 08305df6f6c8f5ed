// What the Conv2D kernel, its gradient kernels (Conv2DBackpropInput, Conv2DBackpropFilter) and
// _FusedConv2D share: the convolution's sizes read from shapes and attrs, the oneDNN plan key,
// memory descriptors and plan runner built on them, and the float64 im2col/col2im (oneDNN 2.6 has
// no f64, so float64 convolutions are GEMMs over im2col matrices).
//
// All of them declare ConvAttrs (ops/nn/nn_attrs.h); each kernel passes the shapes of the forward
// convolution, which sit at different inputs and outputs.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <initializer_list>
#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "kernels/cpu/common/dnnl_plan.h"
#include "kernels/cpu/common/window_geometry.h"
#include "kernels/kernel_registry.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace duet {

// Sizes of one Conv2D (NHWC input, HWIO filter); the arrays are [height, width].
struct ConvGeometry {
  int64_t batch = 0, in_c = 0, out_c = 0;
  int64_t in[2] = {}, window[2] = {}, out[2] = {}, stride[2] = {}, dilation[2] = {};
  WindowPadding pad[2];
};

// The geometry of the Conv2D with input shape `in`, filter shape `filter` and output shape `out`
// (the op's shape function checked that they fit together), with strides, dilations and padding
// from the ConvAttrs of `ctx`.
ConvGeometry MakeConvGeometry(const KernelContext& ctx, const Shape& in, const Shape& filter,
                              const Shape& out);

// Everything a oneDNN convolution plan of `dtype` over `g` depends on.
DnnlKey ConvDnnlKey(DType dtype, const ConvGeometry& g);

// The oneDNN memory descriptors and convolution parameters of `g`: NHWC activations, the user's
// HWIO weights and `any_weights`, which lets oneDNN pick the layout it runs fastest on, and a bias
// of one value per output channel.
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
// memory filled from it by a reorder step added now, so that it runs before the steps added next.
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
// `key_extra`.
absl::Status RunConvPlan(const DnnlPlanKind& kind, ConvPlanBuilder build, DType dtype,
                         const ConvGeometry& g,
                         std::initializer_list<std::pair<int, const void*>> bindings,
                         absl::string_view what, absl::Span<const int64_t> key_extra = {});

using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Gathers one NHWC image's input windows into the rows of `col` [out_h * out_w, k_h * k_w * in_c]
// (padding as zeros), so that Conv2D is one GEMM with the HWIO filter viewed as
// [k_h * k_w * in_c, out_c].
void Im2Col(const double* image, const ConvGeometry& g, double* col);

// The adjoint of Im2Col: overwrites `image` with the sum of the `col` entries read from each pixel.
void Col2Im(const double* col, const ConvGeometry& g, double* image);

}  // namespace duet
