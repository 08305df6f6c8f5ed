// ArgMax and ArgMin over the (outer, n, inner) view of the input around the axis.
#include <algorithm>
#include <vector>

#include "core/int_values.h"
#include "kernels/common/axis_math.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

constexpr int64_t kParallelElements = 32 * 1024;
constexpr int64_t kColumnWidth = 512;

// True when `a` should replace the current best `b`: strictly greater (kMax) or smaller, or the
// first NaN (a NaN best is never replaced, so the first NaN's index is returned, like NumPy).
template <bool kMax, typename T>
bool Better(T a, T b) {
  if (b != b) return false;
  return (kMax ? a > b : a < b) || a != a;
}

// Rows of n contiguous elements (inner == 1).
template <bool kMax, typename T, typename Index>
void ArgRows(const T* src, int64_t outer, int64_t n, Index* dst, ThreadPool& pool) {
  const int64_t min_chunk = std::max<int64_t>(1, kParallelElements / n);
  pool.ParallelFor(outer, min_chunk, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      const T* p = src + o * n;
      int64_t best = 0;
      for (int64_t k = 1; k < n; ++k) {
        if (Better<kMax>(p[k], p[best])) best = k;
      }
      dst[o] = static_cast<Index>(best);
    }
  });
}

// Columns: a running best value and index per column, updated row by row.
template <bool kMax, typename T, typename Index>
void ArgColumns(const T* src, int64_t outer, int64_t n, int64_t inner, Index* dst,
                ThreadPool& pool) {
  const int64_t blocks = (inner + kColumnWidth - 1) / kColumnWidth;
  const int64_t min_chunk =
      std::max<int64_t>(1, kParallelElements / (n * std::min(inner, kColumnWidth)));
  pool.ParallelFor(outer * blocks, min_chunk, [&](int64_t begin, int64_t end) {
    std::vector<T> best(std::min(inner, kColumnWidth));
    for (int64_t u = begin; u < end; ++u) {
      const int64_t o = u / blocks, j0 = (u % blocks) * kColumnWidth;
      const int64_t width = std::min(kColumnWidth, inner - j0);
      const T* block = src + o * n * inner + j0;
      Index* out = dst + o * inner + j0;
      std::copy(block, block + width, best.begin());
      std::fill(out, out + width, Index(0));
      for (int64_t k = 1; k < n; ++k) {
        const T* row = block + k * inner;
        for (int64_t j = 0; j < width; ++j) {
          if (Better<kMax>(row[j], best[j])) {
            best[j] = row[j];
            out[j] = static_cast<Index>(k);
          }
        }
      }
    }
  });
}

template <bool kMax, typename T, typename Index>
void ArgReduce(KernelContext& ctx, int axis) {
  const Tensor& x = ctx.input(0);
  const auto [outer, n, inner] = ViewAroundAxis(x.shape(), axis);
  Index* dst = ctx.output(0).mutable_data<Index>();
  if (inner == 1) {
    ArgRows<kMax>(x.data<T>(), outer, n, dst, ctx.pool());
  } else {
    ArgColumns<kMax>(x.data<T>(), outer, n, inner, dst, ctx.pool());
  }
}

template <bool kMax, typename T>
absl::Status ArgReduceKernel(KernelContext& ctx) {
  if (ctx.output(0).num_elements() == 0) return absl::OkStatus();
  const int axis = WrapAxis(IntScalar(ctx.input(1)), ctx.input(0).rank());
  if (ctx.output(0).dtype() == kInt32) {
    ArgReduce<kMax, T, int32_t>(ctx, axis);
  } else {
    ArgReduce<kMax, T, int64_t>(ctx, axis);
  }
  return absl::OkStatus();
}

template <bool kMax>
bool RegisterArgReduction(absl::string_view op) {
  RegisterKernel(op, DeviceType::kCpu, {kFloat32}, {ArgReduceKernel<kMax, float>});
  RegisterKernel(op, DeviceType::kCpu, {kFloat64}, {ArgReduceKernel<kMax, double>});
  RegisterKernel(op, DeviceType::kCpu, {kInt32}, {ArgReduceKernel<kMax, int32_t>});
  RegisterKernel(op, DeviceType::kCpu, {kInt64}, {ArgReduceKernel<kMax, int64_t>});
  return true;
}

const bool kArgMax = RegisterArgReduction<true>("ArgMax");
const bool kArgMin = RegisterArgReduction<false>("ArgMin");

}  // namespace
}  // namespace duet
