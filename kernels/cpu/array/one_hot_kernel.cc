// OneHot: output viewed as (outer, depth, inner) over indices viewed as (outer, inner).
#include <algorithm>

#include "core/int_values.h"
#include "kernels/cpu/array/register_all_dtypes.h"
#include "ops/array/array_attrs.h"

namespace duet {
namespace {

template <typename T, typename Index>
void OneHot(KernelContext& ctx) {
  const Tensor& indices = ctx.input(0);
  Tensor& out = ctx.output(0);
  const int64_t depth = IntScalar(ctx.input(1));
  const T on = *ctx.input(2).data<T>(), off = *ctx.input(3).data<T>();
  const int64_t axis = ctx.attr(OneHotAttrs::kAxis);
  const int at = axis == -1 ? indices.rank() : static_cast<int>(axis);
  int64_t inner = 1;
  for (int d = at; d < indices.rank(); ++d) inner *= indices.shape().dim(d);
  T* dst = out.mutable_data<T>();
  std::fill(dst, dst + out.num_elements(), off);
  const Index* idx = indices.data<Index>();
  const int64_t n = indices.num_elements();  // hoisted: an out-of-line call
  for (int64_t i = 0; i < n; ++i) {
    const int64_t o = i / inner, j = i % inner, v = idx[i];
    if (v >= 0 && v < depth) dst[(o * depth + v) * inner + j] = on;  // TF: out of range -> off
  }
}

template <typename T>
absl::Status OneHotKernel(KernelContext& ctx) {
  if (ctx.output(0).num_elements() == 0) return absl::OkStatus();
  if (ctx.input(0).dtype() == kInt64) {
    OneHot<T, int64_t>(ctx);
  } else {
    OneHot<T, int32_t>(ctx);
  }
  return absl::OkStatus();
}

const bool kOneHot =
    RegisterAllDTypes("OneHot", [](auto t) -> KernelFn { return OneHotKernel<decltype(t)>; });

}  // namespace
}  // namespace duet
