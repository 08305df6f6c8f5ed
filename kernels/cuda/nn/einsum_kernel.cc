// Einsum on a GPU: the device-neutral lowering onto Sum, Transpose and BatchMatMulV2
// (kernels/common/einsum_lowering.h), run on the CUDA kernels of those ops (cuBLAS for the
// products), so it computes what the CPU kernel does.
#include "kernels/common/einsum_lowering.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

const KernelRegistrar kEinsum("Einsum", DeviceType::kCuda, {kFloat32, kFloat64},
                              {EinsumLoweringKernel, /*allocates_outputs=*/true});

}  // namespace
}  // namespace duet
