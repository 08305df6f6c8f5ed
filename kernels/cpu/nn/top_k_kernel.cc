// TopKV2: per row of the last axis, the k largest values by std::partial_sort of the row's
// indices, larger value first and, among equal values, the lower index first (TensorFlow's rule).
// NaN counts as larger than every number, so that the order is strict. Rows are split
// over threads. The output is always sorted, which `sorted = false` allows.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <vector>

#include "core/int_values.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

// Compared values: 16-bit floats as float.
template <typename T>
auto Key(T v) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return static_cast<float>(v);
  } else {
    return v;
  }
}

// a before b: a larger (NaN largest), or equal and at a lower index.
template <typename K>
bool Before(K a, K b) {
  if constexpr (std::is_floating_point_v<K>) {
    const bool a_nan = std::isnan(a), b_nan = std::isnan(b);
    if (a_nan || b_nan) return a_nan && !b_nan;
  }
  return a > b;
}

template <typename T, typename Index>
void TopK(KernelContext& ctx, int64_t k) {
  const Tensor& input = ctx.input(0);
  const int64_t n = input.shape().dim(input.rank() - 1);
  const int64_t rows = input.num_elements() / n;  // n >= k > 0: the output is not empty
  const T* src = input.data<T>();
  T* values = ctx.output(0).mutable_data<T>();
  Index* indices = ctx.output(1).mutable_data<Index>();
  const int64_t min_chunk = std::max<int64_t>(1, 16 * 1024 / std::max<int64_t>(n, 1));
  ctx.pool().ParallelFor(rows, min_chunk, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> order(n);
    for (int64_t r = begin; r < end; ++r) {
      const T* row = src + r * n;
      std::iota(order.begin(), order.end(), int64_t{0});
      const auto before = [row](int64_t a, int64_t b) {
        const auto ka = Key(row[a]), kb = Key(row[b]);
        if (Before(ka, kb)) return true;
        if (Before(kb, ka)) return false;
        return a < b;
      };
      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      for (int64_t j = 0; j < k; ++j) {
        values[r * k + j] = row[order[j]];
        indices[r * k + j] = static_cast<Index>(order[j]);
      }
    }
  });
}

template <typename T>
absl::Status TopKKernel(KernelContext& ctx) {
  const int64_t k = IntScalar(ctx.input(1));
  if (ctx.output(0).num_elements() == 0) return absl::OkStatus();
  if (ctx.output(1).dtype() == kInt64) {
    TopK<T, int64_t>(ctx, k);
  } else {
    TopK<T, int32_t>(ctx, k);
  }
  return absl::OkStatus();
}

const KernelRegistrar kFloat32Kernel("TopKV2", DeviceType::kCpu, {kFloat32}, {TopKKernel<float>});
const KernelRegistrar kFloat64Kernel("TopKV2", DeviceType::kCpu, {kFloat64}, {TopKKernel<double>});
const KernelRegistrar kFloat16Kernel("TopKV2", DeviceType::kCpu, {kFloat16}, {TopKKernel<float16>});
const KernelRegistrar kBFloat16Kernel("TopKV2", DeviceType::kCpu, {kBFloat16},
                                      {TopKKernel<bfloat16>});
const KernelRegistrar kInt32Kernel("TopKV2", DeviceType::kCpu, {kInt32}, {TopKKernel<int32_t>});
const KernelRegistrar kInt64Kernel("TopKV2", DeviceType::kCpu, {kInt64}, {TopKKernel<int64_t>});

}  // namespace
}  // namespace duet
