// Snapshot on CUDA: the input copied into the output's own buffer on the device's stream.
#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

absl::Status SnapshotKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  return cuda::CudaStatus(cudaMemcpyAsync(out.raw_data(), ctx.input(0).raw_data(), out.nbytes(),
                                          cudaMemcpyDeviceToDevice, context->stream()),
                          "Snapshot");
}

const KernelRegistrar kSnapshot("Snapshot", DeviceType::kCuda,
                                {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool},
                                {SnapshotKernel});

}  // namespace
}  // namespace duet
