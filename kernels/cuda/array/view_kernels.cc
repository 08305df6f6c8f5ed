// CUDA kernels that only read metadata. Identity, StopGradient, Reshape, ExpandDims and Squeeze
// view the input's device buffer (no copy), as on the CPU. Shape, Size and Rank write their small
// int outputs on the CPU: they are host values that feed host inputs (shapes, axes) of other ops.
#include <algorithm>

#include "core/int_values.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

constexpr int kSqueezeDimsAttr = 1;  // Squeeze's attrs: T, squeeze_dims
constexpr int kOutTypeAttr = 1;      // Shape's and Size's attrs: T, out_type

absl::Status PassThroughKernel(KernelContext& ctx) {
  // A new handle onto the same memory: a tape must tell the output from the input.
  ctx.output(0) = ctx.input(0).ViewAs(ctx.input(0).dtype(), ctx.input(0).shape(), ctx.device());
  return absl::OkStatus();
}

absl::Status ReshapeKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  std::vector<int64_t> dims = IntValues(ctx.input(1));
  int64_t known = 1;
  int64_t* unknown = nullptr;
  for (int64_t& d : dims) {
    if (d == -1) {
      unknown = &d;
    } else {
      known *= d;
    }
  }
  if (unknown != nullptr) *unknown = known == 0 ? 0 : x.num_elements() / known;
  ctx.output(0) = x.reshaped(Shape(dims));
  return absl::OkStatus();
}

absl::Status ExpandDimsKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const int rank = x.rank();
  int64_t axis = IntScalar(ctx.input(1));
  if (axis < 0) axis += rank + 1;
  Shape out;
  for (int i = 0; i <= rank; ++i) {
    if (i == axis) out.push_back(1);
    if (i < rank) out.push_back(x.shape().dim(i));
  }
  ctx.output(0) = x.reshaped(out);
  return absl::OkStatus();
}

absl::Status SqueezeKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const auto& axes = ctx.attr<std::vector<int64_t>>(kSqueezeDimsAttr);
  std::vector<bool> drop(x.rank(), axes.empty());
  for (int64_t a : axes) drop[a < 0 ? a + x.rank() : a] = true;
  Shape out;
  for (int i = 0; i < x.rank(); ++i) {
    if (!(drop[i] && x.shape().dim(i) == 1)) out.push_back(x.shape().dim(i));
  }
  ctx.output(0) = x.reshaped(out);
  return absl::OkStatus();
}

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

const KernelRegistrar kIdentity("Identity", DeviceType::kCuda, kAll,
                                {PassThroughKernel, /*allocates_outputs=*/true});
const KernelRegistrar kStopGradient("StopGradient", DeviceType::kCuda, kAll,
                                    {PassThroughKernel, /*allocates_outputs=*/true});
const KernelRegistrar kReshape("Reshape", DeviceType::kCuda, kAll,
                               {ReshapeKernel, /*allocates_outputs=*/true});
const KernelRegistrar kExpandDims("ExpandDims", DeviceType::kCuda, kAll,
                                  {ExpandDimsKernel, /*allocates_outputs=*/true});
const KernelRegistrar kSqueeze("Squeeze", DeviceType::kCuda, kAll,
                               {SqueezeKernel, /*allocates_outputs=*/true});
const KernelRegistrar kShape("Shape", DeviceType::kCuda, kAll,
                             {ShapeKernel, /*allocates_outputs=*/true});
const KernelRegistrar kSize("Size", DeviceType::kCuda, kAll,
                            {SizeKernel, /*allocates_outputs=*/true});
const KernelRegistrar kRank("Rank", DeviceType::kCuda, kAll,
                            {RankKernel, /*allocates_outputs=*/true});

}  // namespace
}  // namespace duet
