// _FusedMatMul on the CPU: the matmul of matmul_runner.h with the bias and activation fused into
// oneDNN's primitive (float32, bfloat16) or applied after Eigen's product (float64).
#include "kernels/cpu/nn/fused_epilogue.h"
#include "kernels/cpu/nn/matmul_runner.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

// Attr positions declared in ops/nn/fused_matmul_op.cc (tests/ops/nn/attr_positions_test.cc
// checks).
enum FusedMatMulAttr {
  kTransposeA = 0,
  kTransposeB = 1,
  kFusedOps = 4,
  kLeakyReluAlpha = 6,
};

absl::Status FusedMatMulKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const FusedEpilogue epilogue,
                        ReadFusedEpilogue(ctx.attr<std::vector<std::string>>(kFusedOps),
                                          ctx.attr<float>(kLeakyReluAlpha)));
  return RunMatMul(ctx, ctx.attr<bool>(kTransposeA), ctx.attr<bool>(kTransposeB), &epilogue);
}

const KernelRegistrar kFusedMatMul("_FusedMatMul", DeviceType::kCpu,
                                   {kFloat32, kFloat64, kBFloat16}, {FusedMatMulKernel});

}  // namespace
}  // namespace duet
