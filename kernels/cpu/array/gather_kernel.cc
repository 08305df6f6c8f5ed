// GatherV2: params viewed as (batch, outer, N, inner) and indices as (batch, M) (batch = 1 when
// batch_dims is 0; gather_geometry.h); each output row (b, o, m) is the contiguous block
// params[b, o, indices[b, m], :].
#include <algorithm>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/int_values.h"
#include "kernels/common/axis_math.h"
#include "kernels/common/gather_geometry.h"
#include "kernels/cpu/array/register_all_dtypes.h"
#include "kernels/cpu/array/strided_copy.h"
#include "ops/array/array_attrs.h"

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

// The params row (of `inner` elements) that output row r, of the batch * outer * M rows, copies.
template <typename Index>
int64_t SourceRow(const GatherGeometry& g, const Index* idx, int64_t r) {
  const int64_t bo = r / g.num_indices, m = r % g.num_indices;  // bo = b * outer + o
  const int64_t b = bo / g.outer;
  return bo * g.n + idx[b * g.num_indices + m];
}

// Copies output rows [begin, end). U is an unsigned type of the element size, used when a row is
// a single element (memcpy per element would dominate).
template <typename Index, typename U>
void GatherRows(const char* params, const Index* idx, char* out, const GatherGeometry& g, int elem,
                int64_t begin, int64_t end) {
  if (g.inner == 1) {
    const U* src = reinterpret_cast<const U*>(params);
    U* dst = reinterpret_cast<U*>(out);
    for (int64_t r = begin; r < end; ++r) dst[r] = src[SourceRow(g, idx, r)];
    return;
  }
  const int64_t bytes = g.inner * elem;
  for (int64_t r = begin; r < end; ++r) {
    std::memcpy(out + r * bytes, params + SourceRow(g, idx, r) * bytes, bytes);
  }
}

template <typename Index, typename U>
void Gather(KernelContext& ctx, const GatherGeometry& g) {
  const int elem = sizeof(U);
  const char* src = static_cast<const char*>(ctx.input(0).raw_data());
  char* dst = static_cast<char*>(ctx.output(0).raw_data());
  const Index* idx = ctx.input(1).data<Index>();
  const int64_t min_chunk = std::max<int64_t>(1, kParallelCopyBytes / (g.inner * elem));
  ctx.pool().ParallelFor(g.batch * g.outer * g.num_indices, min_chunk,
                         [&](int64_t begin, int64_t end) {
                           GatherRows<Index, U>(src, idx, dst, g, elem, begin, end);
                         });
}

template <typename Index>
absl::Status GatherTyped(KernelContext& ctx, const GatherGeometry& g) {
  const Tensor& params = ctx.input(0);
  DUET_RETURN_IF_ERROR(CheckIndices<Index>(ctx.input(1), g.n));
  if (ctx.output(0).num_elements() == 0) return absl::OkStatus();
  switch (DTypeSize(params.dtype())) {
    case 1:
      Gather<Index, uint8_t>(ctx, g);
      break;
    case 2:
      Gather<Index, uint16_t>(ctx, g);
      break;
    case 4:
      Gather<Index, uint32_t>(ctx, g);
      break;
    default:
      Gather<Index, uint64_t>(ctx, g);
      break;
  }
  return absl::OkStatus();
}

// Gather for strings: each output row is assigned from its params row, element objects rather
// than bytes (Note [String tensors] in core/tensor.cc).
template <typename Index>
absl::Status GatherStringsTyped(KernelContext& ctx, const GatherGeometry& g) {
  DUET_RETURN_IF_ERROR(CheckIndices<Index>(ctx.input(1), g.n));
  const Index* idx = ctx.input(1).data<Index>();
  const std::string* src = ctx.input(0).data<std::string>();
  std::string* dst = ctx.output(0).mutable_data<std::string>();
  for (int64_t r = 0; r < g.batch * g.outer * g.num_indices; ++r) {
    const std::string* row = src + SourceRow(g, idx, r) * g.inner;
    std::copy(row, row + g.inner, dst + r * g.inner);
  }
  return absl::OkStatus();
}

// The geometry of the call's gather (its axis and batch_dims).
GatherGeometry GeometryOf(const KernelContext& ctx) {
  const Shape& params = ctx.input(0).shape();
  return MakeGatherGeometry(params, ctx.input(1).shape(),
                            WrapAxis(IntScalar(ctx.input(2)), params.rank()),
                            ctx.attr(GatherAttrs::kBatchDims));
}

absl::Status GatherStringsKernel(KernelContext& ctx) {
  const GatherGeometry g = GeometryOf(ctx);
  return ctx.input(1).dtype() == kInt64 ? GatherStringsTyped<int64_t>(ctx, g)
                                        : GatherStringsTyped<int32_t>(ctx, g);
}

absl::Status GatherKernel(KernelContext& ctx) {
  const GatherGeometry g = GeometryOf(ctx);
  return ctx.input(1).dtype() == kInt64 ? GatherTyped<int64_t>(ctx, g)
                                        : GatherTyped<int32_t>(ctx, g);
}

const bool kGatherV2 = RegisterAllDTypes("GatherV2", [](auto) -> KernelFn { return GatherKernel; });
const KernelRegistrar kGatherV2Strings("GatherV2", DeviceType::kCpu, {kString},
                                       {GatherStringsKernel});

}  // namespace
}  // namespace duet
