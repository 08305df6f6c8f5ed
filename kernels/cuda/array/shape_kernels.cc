// CUDA kernels of Shape, Size and Rank: they read only metadata and write their small int outputs
// on the CPU, as host values that feed host inputs (shapes, axes) of other ops. (The view ops'
// kernels, Identity to Squeeze, are the CPU's, registered for every device.)
#include <algorithm>

#include "kernels/kernel_registry.h"

namespace duet {
namespace {

constexpr int kOutTypeAttr = 1;  // Shape's and Size's attrs: T, out_type

// A host int32/int64 tensor of `shape` holding `values`.
Tensor HostInts(DType dtype, const Shape& shape, absl::Span<const int64_t> values) {
  Tensor out = Tensor::Empty(dtype, shape, Device::cpu());
  if (dtype == kInt64) {
    std::copy(values.begin(), values.end(), out.mutable_data<int64_t>());
  } else {
    std::transform(values.begin(), values.end(), out.mutable_data<int32_t>(),
                   [](int64_t v) { return static_cast<int32_t>(v); });
  }
  return out;
}

absl::Status ShapeKernel(KernelContext& ctx) {
  const Shape& shape = ctx.input(0).shape();
  ctx.output(0) = HostInts(ctx.attr<DType>(kOutTypeAttr), Shape({shape.rank()}), shape.dims());
  return absl::OkStatus();
}

absl::Status SizeKernel(KernelContext& ctx) {
  const int64_t n = ctx.input(0).num_elements();
  ctx.output(0) = HostInts(ctx.attr<DType>(kOutTypeAttr), Shape(), absl::MakeConstSpan(&n, 1));
  return absl::OkStatus();
}

absl::Status RankKernel(KernelContext& ctx) {
  const int64_t rank = ctx.input(0).rank();
  ctx.output(0) = HostInts(kInt32, Shape(), absl::MakeConstSpan(&rank, 1));
  return absl::OkStatus();
}

constexpr std::initializer_list<DType> kAll = {kFloat32, kFloat64, kFloat16, kBFloat16,
                                               kInt32,   kInt64,   kBool};

const KernelRegistrar kShape("Shape", DeviceType::kCuda, kAll,
                             {ShapeKernel, /*allocates_outputs=*/true});
const KernelRegistrar kSize("Size", DeviceType::kCuda, kAll,
                            {SizeKernel, /*allocates_outputs=*/true});
const KernelRegistrar kRank("Rank", DeviceType::kCuda, kAll,
                            {RankKernel, /*allocates_outputs=*/true});

}  // namespace
}  // namespace duet
