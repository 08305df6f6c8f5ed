// Shape queries and constant fills: Shape, Size, Rank, ZerosLike, OnesLike, Fill.
#include <algorithm>

#include "kernels/cpu/array/register_all_dtypes.h"
#include "kernels/cpu/array/strided_copy.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

// The shape queries read no elements, so they serve strings too.
constexpr std::initializer_list<DType> kAll = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32,
                                               kInt64,   kBool,    kUInt8,   kString};

// Writes `values` into the int32 or int64 tensor `out`.
void WriteInts(absl::Span<const int64_t> values, Tensor& out) {
  if (out.dtype() == kInt64) {
    std::copy(values.begin(), values.end(), out.mutable_data<int64_t>());
  } else {
    std::transform(values.begin(), values.end(), out.mutable_data<int32_t>(),
                   [](int64_t v) { return static_cast<int32_t>(v); });
  }
}

absl::Status ShapeKernel(KernelContext& ctx) {
  WriteInts(ctx.input(0).shape().dims(), ctx.output(0));
  return absl::OkStatus();
}

absl::Status SizeKernel(KernelContext& ctx) {
  const int64_t n = ctx.input(0).num_elements();
  WriteInts(absl::MakeConstSpan(&n, 1), ctx.output(0));
  return absl::OkStatus();
}

absl::Status RankKernel(KernelContext& ctx) {
  *ctx.output(0).mutable_data<int32_t>() = ctx.input(0).rank();
  return absl::OkStatus();
}

// Fills `out` with `value`, in parallel chunks when large.
template <typename T>
void FillWith(Tensor& out, T value, ThreadPool& pool) {
  T* p = out.mutable_data<T>();
  const int64_t min_chunk = kParallelCopyBytes / sizeof(T);
  pool.ParallelFor(out.num_elements(), min_chunk,
                   [&](int64_t begin, int64_t end) { std::fill(p + begin, p + end, value); });
}

// T from a double, for the 16-bit float types through float.
template <typename T>
T FromDouble(double v) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return T(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

template <typename T>
absl::Status ZerosLikeKernel(KernelContext& ctx) {
  FillWith(ctx.output(0), FromDouble<T>(0), ctx.pool());
  return absl::OkStatus();
}

template <typename T>
absl::Status OnesLikeKernel(KernelContext& ctx) {
  FillWith(ctx.output(0), FromDouble<T>(1), ctx.pool());
  return absl::OkStatus();
}

template <typename T>
absl::Status FillKernel(KernelContext& ctx) {
  FillWith(ctx.output(0), *ctx.input(1).data<T>(), ctx.pool());
  return absl::OkStatus();
}

const KernelRegistrar kShape("Shape", DeviceType::kCpu, kAll, {ShapeKernel});
const KernelRegistrar kSize("Size", DeviceType::kCpu, kAll, {SizeKernel});
const KernelRegistrar kRank("Rank", DeviceType::kCpu, kAll, {RankKernel});
const bool kZerosLike =
    RegisterAllDTypes("ZerosLike", [](auto t) -> KernelFn { return ZerosLikeKernel<decltype(t)>; });
const bool kOnesLike =
    RegisterAllDTypes("OnesLike", [](auto t) -> KernelFn { return OnesLikeKernel<decltype(t)>; });
const bool kFill =
    RegisterAllDTypes("Fill", [](auto t) -> KernelFn { return FillKernel<decltype(t)>; });

}  // namespace
}  // namespace duet
