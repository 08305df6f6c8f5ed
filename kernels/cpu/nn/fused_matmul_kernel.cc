// _FusedMatMul on the CPU: the matmul of matmul_runner.h with the bias, residual and activation
// fused into oneDNN's primitive (float32, bfloat16) or applied after Eigen's product (float64).
// Output 0 may be written over the residual (Note [In-place outputs] in graph/plan.cc).
#include "kernels/common/fused_epilogue.h"
#include "kernels/cpu/nn/fused_epilogue.h"
#include "kernels/cpu/nn/matmul_runner.h"
#include "kernels/kernel_registry.h"
#include "ops/nn/nn_attrs.h"

namespace duet {
namespace {

absl::Status FusedMatMulKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const FusedEpilogue epilogue,
                        ReadFusedEpilogue(ctx.attr(FusedMatMulAttrs::kFusedOps),
                                          ctx.attr(FusedMatMulAttrs::kLeakyReluAlpha)));
  return RunMatMul(ctx, ctx.attr(MatMulAttrs::kTransposeA), ctx.attr(MatMulAttrs::kTransposeB),
                   &epilogue);
}

const KernelRegistrar kFusedMatMul("_FusedMatMul", DeviceType::kCpu,
                                   {kFloat32, kFloat64, kBFloat16},
                                   {.fn = FusedMatMulKernel, .in_place_input = kResidualInput});

}  // namespace
}  // namespace duet
