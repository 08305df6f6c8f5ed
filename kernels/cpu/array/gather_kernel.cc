// GatherV2: params viewed as (outer, N, inner); each output row (o, m) is the contiguous block
// params[o, indices[m], :].
#include <algorithm>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/int_values.h"
#include "kernels/common/axis_math.h"
#include "kernels/cpu/array/register_all_dtypes.h"
#include "kernels/cpu/array/strided_copy.h"

namespace duet {
namespace {

// Every index must lie in [0, limit); the first that does not is reported.
template <typename Index>
absl::Status CheckIndices(const Tensor& indices, int64_t limit) {
  const Index* p = indices.data<Index>();
  const int64_t n = indices.num_elements();  // hoisted: an out-of-line call
  for (int64_t i = 0; i < n; ++i) {
    if (p[i] < 0 || p[i] >= limit) {
      return absl::InvalidArgumentError(absl::StrCat("indices", IndexString(i, indices.shape()),
                                                     " = ", p[i], " is not in [0, ", limit, ")"));
    }
  }
  return absl::OkStatus();
}

// Copies rows [begin, end) of the (outer * M) output rows. U is an unsigned type of the element
// size, used when a row is a single element (memcpy per element would dominate).
template <typename Index, typename U>
void GatherRows(const char* params, const Index* idx, char* out, int64_t num_idx, int64_t n,
                int64_t inner, int elem, int64_t begin, int64_t end) {
  if (inner == 1) {
    const U* src = reinterpret_cast<const U*>(params);
    U* dst = reinterpret_cast<U*>(out);
    for (int64_t r = begin; r < end; ++r) dst[r] = src[(r / num_idx) * n + idx[r % num_idx]];
    return;
  }
  const int64_t bytes = inner * elem;
  for (int64_t r = begin; r < end; ++r) {
    const int64_t o = r / num_idx, m = r % num_idx;
    std::memcpy(out + r * bytes, params + (o * n + idx[m]) * bytes, bytes);
  }
}

template <typename Index, typename U>
void Gather(KernelContext& ctx, int axis) {
  const Tensor& params = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  Tensor& out = ctx.output(0);
  const AxisView v = ViewAroundAxis(params.shape(), axis);
  const int64_t outer = v.outer, n = v.n, inner = v.inner, num_idx = indices.num_elements();
  const int elem = sizeof(U);
  const char* src = static_cast<const char*>(params.raw_data());
  char* dst = static_cast<char*>(out.raw_data());
  const Index* idx = indices.data<Index>();
  const int64_t min_chunk = std::max<int64_t>(1, kParallelCopyBytes / (inner * elem));
  ctx.pool().ParallelFor(outer * num_idx, min_chunk, [&](int64_t begin, int64_t end) {
    GatherRows<Index, U>(src, idx, dst, num_idx, n, inner, elem, begin, end);
  });
}

template <typename Index>
absl::Status GatherTyped(KernelContext& ctx, int axis) {
  const Tensor& params = ctx.input(0);
  DUET_RETURN_IF_ERROR(CheckIndices<Index>(ctx.input(1), params.shape().dim(axis)));
  if (ctx.output(0).num_elements() == 0) return absl::OkStatus();
  switch (DTypeSize(params.dtype())) {
    case 1:
      Gather<Index, uint8_t>(ctx, axis);
      break;
    case 2:
      Gather<Index, uint16_t>(ctx, axis);
      break;
    case 4:
      Gather<Index, uint32_t>(ctx, axis);
      break;
    default:
      Gather<Index, uint64_t>(ctx, axis);
      break;
  }
  return absl::OkStatus();
}

// Gather for strings: each output row is assigned from params[o, indices[m], :], element objects
// rather than bytes (Note [String tensors] in core/tensor.cc).
template <typename Index>
absl::Status GatherStringsTyped(KernelContext& ctx, int axis) {
  const Tensor& params = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  DUET_RETURN_IF_ERROR(CheckIndices<Index>(indices, params.shape().dim(axis)));
  const AxisView v = ViewAroundAxis(params.shape(), axis);
  const int64_t num_idx = indices.num_elements();
  const Index* idx = indices.data<Index>();
  const std::string* src = params.data<std::string>();
  std::string* dst = ctx.output(0).mutable_data<std::string>();
  for (int64_t r = 0; r < v.outer * num_idx; ++r) {
    const std::string* row = src + ((r / num_idx) * v.n + idx[r % num_idx]) * v.inner;
    std::copy(row, row + v.inner, dst + r * v.inner);
  }
  return absl::OkStatus();
}

absl::Status GatherStringsKernel(KernelContext& ctx) {
  const int axis = WrapAxis(IntScalar(ctx.input(2)), ctx.input(0).rank());
  return ctx.input(1).dtype() == kInt64 ? GatherStringsTyped<int64_t>(ctx, axis)
                                        : GatherStringsTyped<int32_t>(ctx, axis);
}

absl::Status GatherKernel(KernelContext& ctx) {
  const int axis = WrapAxis(IntScalar(ctx.input(2)), ctx.input(0).rank());
  return ctx.input(1).dtype() == kInt64 ? GatherTyped<int64_t>(ctx, axis)
                                        : GatherTyped<int32_t>(ctx, axis);
}

const bool kGatherV2 = RegisterAllDTypes("GatherV2", [](auto) -> KernelFn { return GatherKernel; });
const KernelRegistrar kGatherV2Strings("GatherV2", DeviceType::kCpu, {kString},
                                       {GatherStringsKernel});

}  // namespace
}  // namespace duet
