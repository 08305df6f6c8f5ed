// Where: counts the true elements, allocates [num_true, rank] int64 (the count is known only
// now), then writes each true element's coordinates, in row-major order.
#include <type_traits>
#include <vector>

#include "kernels/cpu/array/register_all_dtypes.h"

namespace duet {
namespace {

template <typename T>
bool IsTrue(T v) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return static_cast<float>(v) != 0.f;
  } else {
    return v != T{};
  }
}

template <typename T>
absl::Status WhereKernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  const T* x = input.data<T>();
  const int64_t n = input.num_elements();
  const int rank = input.rank();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += IsTrue(x[i]);
  DUET_ASSIGN_OR_RETURN(ctx.output(0), Tensor::TryEmpty(kInt64, Shape{count, rank}, ctx.device()));
  int64_t* out = ctx.output(0).mutable_data<int64_t>();
  std::vector<int64_t> coords(rank, 0);  // of element i, advanced like an odometer
  for (int64_t i = 0; i < n; ++i) {
    if (IsTrue(x[i])) {
      for (int d = 0; d < rank; ++d) *out++ = coords[d];
    }
    for (int d = rank - 1; d >= 0; --d) {
      if (++coords[d] < input.shape().dim(d)) break;
      coords[d] = 0;
    }
  }
  return absl::OkStatus();
}

const bool kWhere = RegisterAllDTypes(
    "Where", [](auto t) -> KernelFn { return WhereKernel<decltype(t)>; },
    /*allocates_outputs=*/true);

}  // namespace
}  // namespace duet
