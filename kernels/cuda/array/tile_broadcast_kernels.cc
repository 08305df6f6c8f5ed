// Tile and BroadcastTo on CUDA: strided copies whose source strides are 0 along repeated dims
// (TileCopy and BroadcastToCopy, kernels/common/strided_copy_plan.h; multiples and shape are host
// inputs).
#include "core/int_values.h"
#include "kernels/common/strided_copy_plan.h"
#include "kernels/cuda/array/strided_copy.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

absl::Status TileKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  return cuda::StridedCopy(TileCopy(x.shape(), IntValues(ctx.input(1))), x.raw_data(),
                           out.raw_data(), DTypeSize(x.dtype()), context->stream());
}

absl::Status BroadcastToKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  return cuda::StridedCopy(BroadcastToCopy(x.shape(), out.shape()), x.raw_data(), out.raw_data(),
                           DTypeSize(x.dtype()), context->stream());
}

constexpr std::initializer_list<DType> kAll = {kFloat32, kFloat64, kFloat16, kBFloat16,
                                               kInt32,   kInt64,   kBool};

const KernelRegistrar kTile("Tile", DeviceType::kCuda, kAll, {TileKernel});
const KernelRegistrar kBroadcastTo("BroadcastTo", DeviceType::kCuda, kAll, {BroadcastToKernel});

}  // namespace
}  // namespace duet
