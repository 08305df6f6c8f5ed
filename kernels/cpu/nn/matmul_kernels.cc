// The MatMul and BatchMatMulV2 kernels on the CPU (the matmul itself is in matmul_runner.h).
#include "kernels/cpu/nn/matmul_runner.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

// Attr positions declared in ops/nn/matmul_ops.cc (tests/ops/nn/attr_positions_test.cc checks).
enum MatMulAttr { kMatMulTransposeA = 0, kMatMulTransposeB = 1 };
enum BatchMatMulAttr { kBatchMatMulAdjX = 1, kBatchMatMulAdjY = 2 };

absl::Status MatMulKernel(KernelContext& ctx) {
  return RunMatMul(ctx, ctx.attr<bool>(kMatMulTransposeA), ctx.attr<bool>(kMatMulTransposeB));
}

absl::Status BatchMatMulKernel(KernelContext& ctx) {
  return RunMatMul(ctx, ctx.attr<bool>(kBatchMatMulAdjX), ctx.attr<bool>(kBatchMatMulAdjY));
}

const KernelRegistrar kMatMul("MatMul", DeviceType::kCpu, {kFloat32, kFloat64, kBFloat16},
                              {MatMulKernel});
const KernelRegistrar kBatchMatMul("BatchMatMulV2", DeviceType::kCpu,
                                   {kFloat32, kFloat64, kBFloat16}, {BatchMatMulKernel});

}  // namespace
}  // namespace duet
