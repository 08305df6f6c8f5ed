// _FusedConv2D on the CPU: the convolution of conv2d_runner.h with the bias, residual and
// activation fused into oneDNN's primitive (float32, bfloat16) or applied after the float64 GEMM.
// Output 0 may be written over the residual (Note [In-place outputs] in graph/plan.cc).
#include "kernels/common/fused_epilogue.h"
#include "kernels/cpu/nn/conv2d_runner.h"
#include "kernels/cpu/nn/fused_epilogue.h"
#include "kernels/kernel_registry.h"
#include "ops/nn/nn_attrs.h"

namespace duet {
namespace {

absl::Status FusedConv2DKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const FusedEpilogue epilogue,
                        ReadFusedEpilogue(ctx.attr(FusedConv2DAttrs::kFusedOps),
                                          ctx.attr(FusedConv2DAttrs::kLeakyReluAlpha)));
  return RunConv2D(ctx, &epilogue);
}

const KernelRegistrar kFusedConv2D("_FusedConv2D", DeviceType::kCpu,
                                   {kFloat32, kFloat64, kBFloat16},
                                   {.fn = FusedConv2DKernel, .in_place_input = kResidualInput});

}  // namespace
}  // namespace duet
