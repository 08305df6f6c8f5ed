// Cumsum and Cumprod on the CPU: the tensor is viewed as (outer, n, inner) around the axis. Each
// output row k of a block is the running combination of input rows up to k (exclusive: before
// k; reverse: from the end), accumulated in order like NumPy's cumsum, with the inner loop along
// the contiguous inner dim so that it vectorizes. Integer sums and products wrap.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/int_values.h"
#include "kernels/common/axis_math.h"
#include "kernels/cpu/reduction/reducers.h"
#include "kernels/kernel_registry.h"
#include "ops/reduction/reduction_attrs.h"

namespace duet {
namespace {

// Elements of work below which a scan stays on the calling thread.
constexpr int64_t kParallelElements = 32 * 1024;
// Inner columns one unit of work covers (a stripe of the accumulator that stays in L1).
constexpr int64_t kStripe = 1024;

// One stripe of `width` columns of one (n, inner) block: dst rows are running combinations of
// src rows, visited in order (or from the end with `reverse`).
template <typename R, typename T>
void ScanStripe(const T* src, T* dst, int64_t n, int64_t inner, int64_t width, bool exclusive,
                bool reverse, T* acc) {
  std::fill(acc, acc + width, R::Identity());
  for (int64_t step = 0; step < n; ++step) {
    const int64_t k = reverse ? n - 1 - step : step;
    const T* __restrict in = src + k * inner;
    T* __restrict out = dst + k * inner;
    if (exclusive) {
      for (int64_t j = 0; j < width; ++j) {
        out[j] = acc[j];
        acc[j] = R::Combine(acc[j], in[j]);
      }
    } else {
      for (int64_t j = 0; j < width; ++j) out[j] = acc[j] = R::Combine(acc[j], in[j]);
    }
  }
}

template <typename R, typename T>
absl::Status ScanKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (x.num_elements() == 0) return absl::OkStatus();
  const AxisView v = ViewAroundAxis(x.shape(), WrapAxis(IntScalar(ctx.input(1)), x.rank()));
  const bool exclusive = ctx.attr(ScanAttrs::kExclusive);
  const bool reverse = ctx.attr(ScanAttrs::kReverse);
  const T* src = x.data<T>();
  T* dst = out.mutable_data<T>();
  const int64_t stripes = (v.inner + kStripe - 1) / kStripe;
  const int64_t width = std::min(v.inner, kStripe);
  const int64_t min_chunk = std::max<int64_t>(1, kParallelElements / (v.n * width));
  ctx.pool().ParallelFor(v.outer * stripes, min_chunk, [&](int64_t begin, int64_t end) {
    std::vector<T> acc(width);
    for (int64_t u = begin; u < end; ++u) {
      const int64_t o = u / stripes, j0 = (u % stripes) * kStripe;
      const int64_t offset = o * v.n * v.inner + j0;
      ScanStripe<R>(src + offset, dst + offset, v.n, v.inner, std::min(kStripe, v.inner - j0),
                    exclusive, reverse, acc.data());
    }
  });
  return absl::OkStatus();
}

template <template <typename> class R>
bool RegisterScan(absl::string_view op) {
  RegisterKernel(op, DeviceType::kCpu, {kFloat32}, {ScanKernel<R<float>, float>});
  RegisterKernel(op, DeviceType::kCpu, {kFloat64}, {ScanKernel<R<double>, double>});
  RegisterKernel(op, DeviceType::kCpu, {kInt32}, {ScanKernel<R<int32_t>, int32_t>});
  RegisterKernel(op, DeviceType::kCpu, {kInt64}, {ScanKernel<R<int64_t>, int64_t>});
  return true;
}

const bool kCumsum = RegisterScan<SumReducer>("Cumsum");
const bool kCumprod = RegisterScan<ProdReducer>("Cumprod");

}  // namespace
}  // namespace duet
