// NoOp's kernel does nothing.
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

const KernelRegistrar kNoOp("NoOp", DeviceType::kCpu, {kFloat32},
                            {[](KernelContext&) { return absl::OkStatus(); }});

}  // namespace
}  // namespace duet
