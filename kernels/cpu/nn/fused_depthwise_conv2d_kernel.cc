// _FusedDepthwiseConv2dNative on the CPU: the depthwise convolution of conv2d_runner.h with the
// bias, residual and activation fused into oneDNN's grouped convolution (float32, bfloat16) or
// applied after the float64 loops. Output 0 may be written over the residual (Note [In-place
// outputs] in graph/plan.cc).
#include "kernels/common/fused_epilogue.h"
#include "kernels/cpu/nn/conv2d_runner.h"
#include "kernels/cpu/nn/fused_epilogue.h"
#include "kernels/kernel_registry.h"
#include "ops/nn/nn_attrs.h"

namespace duet {
namespace {

absl::Status FusedDepthwiseConv2dNativeKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const FusedEpilogue epilogue,
                        ReadFusedEpilogue(ctx.attr(FusedDepthwiseConvAttrs::kFusedOps),
                                          ctx.attr(FusedDepthwiseConvAttrs::kLeakyReluAlpha)));
  return RunFusedDepthwiseConv2D(ctx, epilogue);
}

const KernelRegistrar kFusedDepthwiseConv2dNative("_FusedDepthwiseConv2dNative", DeviceType::kCpu,
                                                  {kFloat32, kFloat64, kBFloat16},
                                                  {.fn = FusedDepthwiseConv2dNativeKernel,
                                                   .in_place_input = kResidualInput});

}  // namespace
}  // namespace duet
