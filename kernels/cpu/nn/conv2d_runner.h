// The CPU forward convolution behind Conv2D, _FusedConv2D, DepthwiseConv2dNative,
// _FusedDepthwiseConv2dNative and Conv3D: oneDNN's convolution for float32 and bfloat16 (NHWC
// activations; HWIO or grouped weights reordered into the layout oneDNN prefers; bfloat16 in
// float32 where the CPU lacks it, Note [Reduced precision without oneDNN support] in
// kernels/cpu/common/dnnl_plan.cc), im2col + Eigen GEMM for float64 (direct loops for grouped
// float64 convolutions).
#pragma once

#include "absl/status/status.h"
#include "kernels/common/fused_epilogue.h"
#include "kernels/kernel_registry.h"

namespace duet {

// Sets ctx's output 0 (allocated with the output's shape) to the convolution of NHWC input 0 with
// HWIO filter input 1, with strides, padding and dilations from the call's ConvAttrs. With an
// `epilogue`, then adds input 2 (the bias, per output channel), input 3 when it adds a residual,
// and applies its activation: inside the oneDNN primitive, or as a loop after the float64 GEMM.
absl::Status RunConv2D(KernelContext& ctx, const FusedEpilogue* epilogue = nullptr);

// Sets ctx's output 0 to the depthwise convolution of NHWC input 0 with filter input 1 [k_h, k_w,
// in_channels, multiplier], with strides, padding and dilations from the call's
// DepthwiseConvAttrs: oneDNN's grouped convolution (one group per input channel), or direct loops
// for float64 (grouped_conv_loops.h).
absl::Status RunDepthwiseConv2D(KernelContext& ctx);

// RunDepthwiseConv2D for _FusedDepthwiseConv2dNative (window attrs at its own positions,
// kFusedDepthwiseWindowKeys), then adds input 2 (the bias) and applies the activation of
// `epilogue`, as RunConv2D does.
absl::Status RunFusedDepthwiseConv2D(KernelContext& ctx, const FusedEpilogue& epilogue);

// Sets ctx's output 0 to the convolution of NDHWC input 0 with DHWIO filter input 1, with strides,
// padding and dilations from the call's Conv3DAttrs: oneDNN's 3-D convolution, or im2col + Eigen
// GEMM for float64.
absl::Status RunConv3D(KernelContext& ctx);

}  // namespace duet
