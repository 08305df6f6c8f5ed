// Kernels of DuetCopyToDevice: the output (allocated by the dispatcher on the op's device) is
// filled from the input wherever it lives. They need only the CUDA runtime, so they build on every
// machine. Copies between CPU devices (the host and virtual devices, Note [Virtual devices] in
// core/device.cc) are a plain memcpy.
#include <cstring>

#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

absl::Status CopyKernel(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (in.device().is_cpu() && out.device().is_cpu()) {  // the host and virtual CPU devices
    std::memcpy(out.raw_data(), in.raw_data(), in.nbytes());
    CountHostTransfer(out.device(), in.device());
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
