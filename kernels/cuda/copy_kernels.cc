// Kernels of DuetCopyToDevice for copies that involve a CUDA device: the output (allocated by the
// dispatcher on the op's device) is filled from the input wherever it lives. They need only the
// CUDA runtime, so they build on every machine; CPU-to-CPU copies never reach them (Tensor::to
// returns the tensor itself) except from hand-built graphs, which get a plain memcpy.
#include <cstring>

#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

absl::Status CopyKernel(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (in.device().is_cpu() && out.device().is_cpu()) {
    std::memcpy(out.raw_data(), in.raw_data(), in.nbytes());
    return absl::OkStatus();
  }
  return cuda::CopyBytes(out.raw_data(), out.device(), in.raw_data(), in.device(), in.nbytes());
}

const bool registered = [] {
  for (int i = 0; i < kNumNumericDTypes; ++i) {  // bytes: never strings (Note [String tensors])
    const DType dtype = static_cast<DType>(i);
    for (DeviceType device : {DeviceType::kCpu, DeviceType::kCuda}) {
      RegisterKernel("DuetCopyToDevice", device, {dtype}, KernelDef{&CopyKernel});
    }
  }
  return true;
}();

}  // namespace
}  // namespace duet
