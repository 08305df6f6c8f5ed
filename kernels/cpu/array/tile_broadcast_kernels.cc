// Tile and BroadcastTo: strided copies whose source strides are 0 along repeated dims.
#include "core/int_values.h"
#include "kernels/cpu/array/register_all_dtypes.h"
#include "kernels/cpu/array/strided_copy.h"

namespace duet {
namespace {

// Tile's output, of dims (m0*d0, m1*d1, ...), is row-major identical to dims (m0, d0, m1, d1,
// ...); reading x with stride 0 along each m_i turns tiling into one broadcasting copy.
absl::Status TileKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const std::vector<int64_t> multiples = IntValues(ctx.input(1));
  const auto x_strides = ContiguousStrides(x.shape().dims());
  absl::InlinedVector<int64_t, 8> dims, src;
  for (int d = 0; d < x.rank(); ++d) {
    dims.push_back(multiples[d]);
    src.push_back(0);
    dims.push_back(x.shape().dim(d));
    src.push_back(x_strides[d]);
  }
  StridedCopy(dims, x.raw_data(), src, out.raw_data(), ContiguousStrides(dims),
              DTypeSize(x.dtype()), ctx.pool());
  return absl::OkStatus();
}

absl::Status BroadcastToKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const auto x_strides = ContiguousStrides(x.shape().dims());
  const int lead = out.rank() - x.rank();  // dims x lacks; read with stride 0
  absl::InlinedVector<int64_t, 8> src(out.rank(), 0);
  for (int d = 0; d < x.rank(); ++d) {
    if (x.shape().dim(d) != 1) src[lead + d] = x_strides[d];
  }
  StridedCopy(out.shape().dims(), x.raw_data(), src, out.raw_data(),
              ContiguousStrides(out.shape().dims()), DTypeSize(x.dtype()), ctx.pool());
  return absl::OkStatus();
}

const bool kTile = RegisterAllDTypes("Tile", [](auto) -> KernelFn { return TileKernel; });
const bool kBroadcastTo =
    RegisterAllDTypes("BroadcastTo", [](auto) -> KernelFn { return BroadcastToKernel; });

}  // namespace
}  // namespace duet
