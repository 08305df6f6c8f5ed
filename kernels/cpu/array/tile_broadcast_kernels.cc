// Tile and BroadcastTo: strided copies whose source strides are 0 along repeated dims.
#include "core/int_values.h"
#include "kernels/cpu/array/register_all_dtypes.h"
#include "kernels/cpu/array/strided_copy.h"

namespace duet {
namespace {

absl::Status TileKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  StridedCopy(TileCopy(x.shape(), IntValues(ctx.input(1))), x.raw_data(), out.raw_data(),
              DTypeSize(x.dtype()), ctx.pool());
  return absl::OkStatus();
}

absl::Status BroadcastToKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  StridedCopy(BroadcastToCopy(x.shape(), out.shape()), x.raw_data(), out.raw_data(),
              DTypeSize(x.dtype()), ctx.pool());
  return absl::OkStatus();
}

const bool kTile = RegisterAllDTypes("Tile", [](auto) -> KernelFn { return TileKernel; });
const bool kBroadcastTo =
    RegisterAllDTypes("BroadcastTo", [](auto) -> KernelFn { return BroadcastToKernel; });

}  // namespace
}  // namespace duet
