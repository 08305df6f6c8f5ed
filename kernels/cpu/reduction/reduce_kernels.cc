// Sum, Mean, Max, Min, Prod, All, Any: planned as (outer, reduce, inner) passes (see
// reduce_plan.h), each pass a row or column reduction (reduce_loops.h) split over the thread pool
// when large.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/common/reduce_plan.h"
#include "kernels/cpu/reduction/reduce_loops.h"
#include "kernels/cpu/reduction/reducers.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

// Elements of work below which a loop stays on the calling thread (and the least per chunk).
constexpr int64_t kParallelElements = 32 * 1024;
// Rows longer than this are cut into pieces of this many elements that reduce in parallel.
constexpr int64_t kRowPiece = 64 * 1024;
// Columns a column-reduction unit covers: wide enough to stream rows, small enough for L1.
constexpr int64_t kColumnWidth = 512;

// dst[o] = reduction of row o of src (outer rows of n contiguous elements), in R::Acc = A.
template <typename R, typename S, typename A>
void RowPass(const S* src, int64_t outer, int64_t n, A* dst, ThreadPool& pool) {
  if (n <= kRowPiece) {
    const int64_t min_chunk = std::max<int64_t>(1, kParallelElements / n);
    pool.ParallelFor(outer, min_chunk, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) dst[o] = ReduceRow<R>(src + o * n, n);
    });
    return;
  }
  // Long rows: fixed pieces (independent of the thread count, so results are deterministic),
  // then a pairwise reduction of each row's partial results.
  const int64_t pieces = (n + kRowPiece - 1) / kRowPiece;
  std::vector<A> partial(outer * pieces);
  pool.ParallelFor(outer * pieces, 1, [&](int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u) {
      const int64_t o = u / pieces, start = (u % pieces) * kRowPiece;
      partial[u] = ReduceRow<R>(src + o * n + start, std::min(kRowPiece, n - start));
    }
  });
  for (int64_t o = 0; o < outer; ++o) dst[o] = ReduceRow<R>(partial.data() + o * pieces, pieces);
}

// dst[o, j] = reduction over r of src[o, r, j] (the (outer, rows, inner) view).
template <typename R, typename S, typename A>
void ColumnPass(const S* src, int64_t outer, int64_t rows, int64_t inner, A* dst,
                ThreadPool& pool) {
  const int64_t blocks = (inner + kColumnWidth - 1) / kColumnWidth;
  const int64_t width = std::min(inner, kColumnWidth);
  const int64_t min_chunk = std::max<int64_t>(1, kParallelElements / (rows * width));
  pool.ParallelFor(outer * blocks, min_chunk, [&](int64_t begin, int64_t end) {
    std::vector<A> scratch(ColumnScratchSize(rows, width));
    for (int64_t u = begin; u < end; ++u) {
      const int64_t o = u / blocks, j0 = (u % blocks) * kColumnWidth;
      ReduceColumns<R>(src + o * rows * inner + j0, rows, std::min(kColumnWidth, inner - j0), inner,
                       dst + o * inner + j0, scratch.data());
    }
  });
}

// The value of a reduction over nothing: the reducer's identity; for Mean, 0/0.
template <typename R, typename T, bool kMean>
T EmptyValue() {
  if constexpr (kMean && std::numeric_limits<T>::has_quiet_NaN) {
    return std::numeric_limits<T>::quiet_NaN();
  } else if constexpr (kMean) {
    return T(0);  // integer 0/0 is undefined; TensorFlow has no defined answer either
  } else {
    return static_cast<T>(R::Identity());
  }
}

// Runs the planned passes from x into out, through scratch buffers of R::Acc between passes; the
// results are divided by `count` (Mean's; 1 for the others) in R::Acc and then converted to T.
template <typename R, typename T>
void RunPasses(const std::vector<ReducePass>& passes, const T* x, T* out, int64_t count,
               ThreadPool& pool) {
  using A = typename R::Acc;
  std::vector<A> buffers[2];
  const A* src = nullptr;  // the previous pass's result
  for (size_t i = 0; i < passes.size(); ++i) {
    const ReducePass& p = passes[i];
    A* dst = nullptr;
    if constexpr (std::is_same_v<A, T>) {
      if (i + 1 == passes.size()) dst = out;
    }
    if (dst == nullptr) {
      buffers[i % 2].resize(p.outer * p.inner);
      dst = buffers[i % 2].data();
    }
    auto pass = [&](const auto* in) {
      if (p.inner == 1) {
        RowPass<R>(in, p.outer, p.reduce, dst, pool);
      } else {
        ColumnPass<R>(in, p.outer, p.reduce, p.inner, dst, pool);
      }
    };
    i == 0 ? pass(x) : pass(src);
    src = dst;
  }
  const int64_t n = passes.back().outer * passes.back().inner;
  if (count != 1) {
    const A divisor = static_cast<A>(count);  // integers truncate, like TensorFlow
    for (int64_t j = 0; j < n; ++j) out[j] = static_cast<T>(src[j] / divisor);
  } else if constexpr (!std::is_same_v<A, T>) {
    for (int64_t j = 0; j < n; ++j) out[j] = static_cast<T>(src[j]);
  }
}

// The elements of t as T; bool tensors (All, Any) are read as their bytes.
template <typename T>
const T* ElementsOf(const Tensor& t) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    return reinterpret_cast<const uint8_t*>(t.data<bool>());
  } else {
    return t.data<T>();
  }
}

template <typename T>
T* MutableElementsOf(Tensor& t) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    return reinterpret_cast<uint8_t*>(t.mutable_data<bool>());
  } else {
    return t.mutable_data<T>();
  }
}

template <typename R, typename T, bool kMean = false>
absl::Status ReduceKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  T* dst = MutableElementsOf<T>(out);
  const int64_t n_out = out.num_elements();
  if (n_out == 0) return absl::OkStatus();
  if (x.num_elements() == 0) {
    std::fill(dst, dst + n_out, EmptyValue<R, T, kMean>());
    return absl::OkStatus();
  }
  const std::vector<bool> reduced = ReducedDims(ctx.input(1), x.rank());
  const std::vector<ReducePass> passes = PlanReduction(x.shape().dims(), reduced);
  if (passes.empty()) {
    std::memcpy(dst, ElementsOf<T>(x), x.nbytes());
    return absl::OkStatus();
  }
  RunPasses<R>(passes, ElementsOf<T>(x), dst, kMean ? x.num_elements() / n_out : 1, ctx.pool());
  return absl::OkStatus();
}

// Registers the kernels of one reduction for its four dtypes.
template <template <typename> class R, bool kMean = false>
bool RegisterReduction(absl::string_view op) {
  RegisterKernel(op, DeviceType::kCpu, {kFloat32}, {ReduceKernel<R<float>, float, kMean>});
  RegisterKernel(op, DeviceType::kCpu, {kFloat64}, {ReduceKernel<R<double>, double, kMean>});
  RegisterKernel(op, DeviceType::kCpu, {kInt32}, {ReduceKernel<R<int32_t>, int32_t, kMean>});
  RegisterKernel(op, DeviceType::kCpu, {kInt64}, {ReduceKernel<R<int64_t>, int64_t, kMean>});
  return true;
}

const bool kSum = RegisterReduction<SumReducer>("Sum");
const bool kMean = RegisterReduction<MeanSumReducer, /*kMean=*/true>("Mean");
const bool kMax = RegisterReduction<MaxReducer>("Max");
const bool kMin = RegisterReduction<MinReducer>("Min");
const bool kProd = RegisterReduction<ProdReducer>("Prod");

// All and Any have no T: their kernels are picked by Tidx (int32 or int64), and read bytes.
const KernelRegistrar kAll("All", DeviceType::kCpu, {kInt32, kInt64},
                           {ReduceKernel<AllReducer, uint8_t>});
const KernelRegistrar kAny("Any", DeviceType::kCpu, {kInt32, kInt64},
                           {ReduceKernel<AnyReducer, uint8_t>});

}  // namespace
}  // namespace duet
