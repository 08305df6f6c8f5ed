// Tile and BroadcastTo on CUDA: strided copies whose source strides are 0 along repeated dims
// (the CPU kernels' plan; multiples and shape are host inputs).
#include "core/int_values.h"
#include "kernels/cpu/array/strided_copy.h"
#include "kernels/cuda/array/strided_copy.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

// The output, of dims (m0*d0, m1*d1, ...), is row-major identical to dims (m0, d0, m1, d1, ...);
// reading x with stride 0 along each m_i makes tiling one broadcasting copy.
absl::Status TileKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  const std::vector<int64_t> multiples = IntValues(ctx.input(1));
  const auto x_strides = ContiguousStrides(x.shape().dims());
  absl::InlinedVector<int64_t, 8> dims, src;
  for (int d = 0; d < x.rank(); ++d) {
    dims.push_back(multiples[d]);
    src.push_back(0);
    dims.push_back(x.shape().dim(d));
    src.push_back(x_strides[d]);
  }
  return cuda::StridedCopy(dims, x.raw_data(), src, out.raw_data(), ContiguousStrides(dims),
                           DTypeSize(x.dtype()), context->stream());
}

absl::Status BroadcastToKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  const auto x_strides = ContiguousStrides(x.shape().dims());
  const int lead = out.rank() - x.rank();  // dims x lacks; read with stride 0
  absl::InlinedVector<int64_t, 8> src(out.rank(), 0);
  for (int d = 0; d < x.rank(); ++d) {
    if (x.shape().dim(d) != 1) src[lead + d] = x_strides[d];
  }
  return cuda::StridedCopy(out.shape().dims(), x.raw_data(), src, out.raw_data(),
                           ContiguousStrides(out.shape().dims()), DTypeSize(x.dtype()),
                           context->stream());
}

constexpr std::initializer_list<DType> kAll = {kFloat32, kFloat64, kFloat16, kBFloat16,
                                               kInt32,   kInt64,   kBool};

const KernelRegistrar kTile("Tile", DeviceType::kCuda, kAll, {TileKernel});
const KernelRegistrar kBroadcastTo("BroadcastTo", DeviceType::kCuda, kAll, {BroadcastToKernel});

}  // namespace
}  // namespace duet
