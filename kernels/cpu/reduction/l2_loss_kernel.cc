// L2Loss on the CPU: sum(t^2) / 2. Fixed pieces of the tensor (independent of the thread count, so
// the result is deterministic) are summed in parallel, each pairwise with independent lane
// accumulators like ReduceRow (reduce_loops.h), then the pieces' sums are added in order. float16
// and bfloat16 are widened and summed in float32.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/cpu/common/half_convert.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

constexpr int64_t kPiece = 32 * 1024;  // elements summed by one unit of work
constexpr int64_t kLeaf = 1024;        // elements summed in one straight pass before halving

// sum of p[i]^2 for i < n, pairwise over vector-wide blocks.
template <typename T>
T SumSquares(const T* p, int64_t n) {
  constexpr int64_t kLanes = 64 / sizeof(T);
  if (n > kLeaf) {
    const int64_t half = (n / 2 + kLanes - 1) / kLanes * kLanes;
    return SumSquares(p, half) + SumSquares(p + half, n - half);
  }
  T acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t j = 0; j < kLanes; ++j) acc[j] += p[i + j] * p[i + j];
  }
  for (int64_t j = 0; i < n; ++i, ++j) acc[j] += p[i] * p[i];
  for (int64_t w = kLanes / 2; w > 0; w /= 2) {
    for (int64_t j = 0; j < w; ++j) acc[j] += acc[j + w];
  }
  return acc[0];
}

inline void Widen(const float16* x, float* y, int64_t n) { HalfToFloat(x, y, n); }
inline void Widen(const bfloat16* x, float* y, int64_t n) { BFloat16ToFloat(x, y, n); }

// Sum of squares of one piece as the accumulation type A.
template <typename T, typename A>
A PieceSum(const T* p, int64_t n) {
  if constexpr (std::is_same_v<T, A>) {
    return SumSquares(p, n);
  } else {
    std::vector<float> wide(n);
    Widen(p, wide.data(), n);
    return SumSquares(wide.data(), n);
  }
}

// T: the element type; A: the accumulation type (float for the 16-bit types).
template <typename T, typename A>
absl::Status L2LossKernel(KernelContext& ctx) {
  const Tensor& t = ctx.input(0);
  const T* x = t.data<T>();
  const int64_t n = t.num_elements();
  const int64_t pieces = std::max<int64_t>(1, (n + kPiece - 1) / kPiece);
  std::vector<A> partial(pieces, A(0));
  ctx.pool().ParallelFor(pieces, 1, [&](int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u) {
      const int64_t start = u * kPiece;
      partial[u] = PieceSum<T, A>(x + start, std::min(kPiece, n - start));
    }
  });
  A total = 0;
  for (A s : partial) total += s;
  ctx.output(0).mutable_data<T>()[0] = static_cast<T>(total / A(2));
  return absl::OkStatus();
}

const KernelRegistrar kF32("L2Loss", DeviceType::kCpu, {kFloat32}, {&L2LossKernel<float, float>});
const KernelRegistrar kF64("L2Loss", DeviceType::kCpu, {kFloat64}, {&L2LossKernel<double, double>});
const KernelRegistrar kF16("L2Loss", DeviceType::kCpu, {kFloat16}, {&L2LossKernel<float16, float>});
const KernelRegistrar kBF16("L2Loss", DeviceType::kCpu, {kBFloat16},
                            {&L2LossKernel<bfloat16, float>});

}  // namespace
}  // namespace duet
