// Einsum on the CPU: the device-neutral lowering onto Sum, Transpose and BatchMatMulV2
// (kernels/common/einsum_lowering.h), run on the CPU kernels of those ops.
#include "kernels/common/einsum_lowering.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

const KernelRegistrar kEinsum("Einsum", DeviceType::kCpu, {kFloat32, kFloat64},
                              {EinsumLoweringKernel, /*allocates_outputs=*/true});

}  // namespace
}  // namespace duet
