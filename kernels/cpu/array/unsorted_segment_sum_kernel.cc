// UnsortedSegmentSum: data viewed as (rows, inner), rows matching segment_ids; row r is added to
// output row segment_ids[r]. Threads split the inner columns, so no two write the same element.
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

// Element additions below this stay on the calling thread.
constexpr int64_t kParallelAdds = 32 * 1024;

// Negative ids are dropped (TensorFlow's rule); ids past the last segment are errors.
template <typename Index>
absl::Status CheckIds(const Tensor& ids, int64_t num_segments) {
  const Index* p = ids.data<Index>();
  const int64_t n = ids.num_elements();  // hoisted: an out-of-line call
  for (int64_t i = 0; i < n; ++i) {
    if (p[i] >= num_segments) {
      return absl::InvalidArgumentError(
          absl::StrCat("segment_ids", IndexString(i, ids.shape()), " = ", p[i],
                       " is not in [0, num_segments = ", num_segments, ")"));
    }
  }
  return absl::OkStatus();
}

// 16-bit floats accumulate in float32 and round once; integers wrap through the unsigned type
// (defined behaviour, TensorFlow's result).
template <typename T>
struct AccumulatorOf {
  using type = T;
};
template <>
struct AccumulatorOf<float16> {
  using type = float;
};
template <>
struct AccumulatorOf<bfloat16> {
  using type = float;
};
template <>
struct AccumulatorOf<int32_t> {
  using type = uint32_t;
};
template <>
struct AccumulatorOf<int64_t> {
  using type = uint64_t;
};
template <typename T>
using Accumulator = typename AccumulatorOf<T>::type;

template <typename T>
Accumulator<T> ToAccumulator(T v) {
  return static_cast<Accumulator<T>>(v);
}

template <typename T, typename Index>
void SegmentSum(KernelContext& ctx, Accumulator<T>* acc) {
  const Tensor& data = ctx.input(0);
  const Tensor& ids = ctx.input(1);
  const int64_t rows = ids.num_elements();
  const int64_t inner = rows == 0 ? 0 : data.num_elements() / rows;
  const T* src = data.data<T>();
  const Index* id = ids.data<Index>();
  const int64_t min_chunk = std::max<int64_t>(1, kParallelAdds / std::max<int64_t>(rows, 1));
  ctx.pool().ParallelFor(inner, min_chunk, [&](int64_t begin, int64_t end) {
    for (int64_t r = 0; r < rows; ++r) {
      if (id[r] < 0) continue;
      const T* row = src + r * inner;
      Accumulator<T>* dst = acc + static_cast<int64_t>(id[r]) * inner;
      for (int64_t c = begin; c < end; ++c) dst[c] += ToAccumulator(row[c]);
    }
  });
}

template <typename T, typename Index>
absl::Status SegmentSumTyped(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  DUET_RETURN_IF_ERROR(CheckIds<Index>(ctx.input(1), out.shape().dim(0)));
  const int64_t n = out.num_elements();
  if (n == 0) return absl::OkStatus();
  if constexpr (sizeof(Accumulator<T>) == sizeof(T)) {
    // Same width: accumulate in place (the unsigned twin of an integer type aliases it).
    auto* acc = reinterpret_cast<Accumulator<T>*>(out.mutable_data<T>());
    std::fill(acc, acc + n, Accumulator<T>{});
    SegmentSum<T, Index>(ctx, acc);
  } else {
    std::vector<Accumulator<T>> acc(n);
    SegmentSum<T, Index>(ctx, acc.data());
    std::transform(acc.begin(), acc.end(), out.mutable_data<T>(), [](float v) { return T(v); });
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status UnsortedSegmentSumKernel(KernelContext& ctx) {
  return ctx.input(1).dtype() == kInt64 ? SegmentSumTyped<T, int64_t>(ctx)
                                        : SegmentSumTyped<T, int32_t>(ctx);
}

const KernelRegistrar kFloat32Kernel("UnsortedSegmentSum", DeviceType::kCpu, {kFloat32},
                                     {UnsortedSegmentSumKernel<float>});
const KernelRegistrar kFloat64Kernel("UnsortedSegmentSum", DeviceType::kCpu, {kFloat64},
                                     {UnsortedSegmentSumKernel<double>});
const KernelRegistrar kFloat16Kernel("UnsortedSegmentSum", DeviceType::kCpu, {kFloat16},
                                     {UnsortedSegmentSumKernel<float16>});
const KernelRegistrar kBFloat16Kernel("UnsortedSegmentSum", DeviceType::kCpu, {kBFloat16},
                                      {UnsortedSegmentSumKernel<bfloat16>});
const KernelRegistrar kInt32Kernel("UnsortedSegmentSum", DeviceType::kCpu, {kInt32},
                                   {UnsortedSegmentSumKernel<int32_t>});
const KernelRegistrar kInt64Kernel("UnsortedSegmentSum", DeviceType::kCpu, {kInt64},
                                   {UnsortedSegmentSumKernel<int64_t>});

}  // namespace
}  // namespace duet
