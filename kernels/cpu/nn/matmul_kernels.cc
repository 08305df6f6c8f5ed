// The MatMul and BatchMatMulV2 kernels on the CPU (the matmul itself is in matmul_runner.h).
#include "kernels/cpu/nn/matmul_runner.h"
#include "kernels/kernel_registry.h"
#include "ops/nn/nn_attrs.h"

namespace duet {
namespace {

absl::Status MatMulKernel(KernelContext& ctx) {
  return RunMatMul(ctx, ctx.attr(MatMulAttrs::kTransposeA), ctx.attr(MatMulAttrs::kTransposeB));
}

absl::Status BatchMatMulKernel(KernelContext& ctx) {
  return RunMatMul(ctx, ctx.attr(BatchMatMulAttrs::kAdjX), ctx.attr(BatchMatMulAttrs::kAdjY));
}

const KernelRegistrar kMatMul("MatMul", DeviceType::kCpu, {kFloat32, kFloat64, kBFloat16},
                              {MatMulKernel});
const KernelRegistrar kBatchMatMul("BatchMatMulV2", DeviceType::kCpu,
                                   {kFloat32, kFloat64, kBFloat16}, {BatchMatMulKernel});

}  // namespace
}  // namespace duet
