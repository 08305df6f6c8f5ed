// NoOp's kernel does nothing.
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

absl::Status NoOpKernel(KernelContext&) { return absl::OkStatus(); }

// It touches no memory, so it serves every device.
const KernelRegistrar kNoOp("NoOp", DeviceType::kCpu, {kFloat32}, {NoOpKernel});
const KernelRegistrar kNoOpCuda("NoOp", DeviceType::kCuda, {kFloat32}, {NoOpKernel});

}  // namespace
}  // namespace duet
