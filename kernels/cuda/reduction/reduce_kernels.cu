#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/common/wrapping_arithmetic.h"
#include "kernels/cuda/reduction/reduce_kernels.h"

namespace duet::cuda {
namespace {

constexpr int kThreads = 256;  // every reduction block: 8 warps
constexpr int kWarps = kThreads / 32;
constexpr int kColumns = 32;                // columns per column-reduction block (one warp wide)
constexpr int kColumnRows = kThreads / 32;  // rows a column block reads at once
constexpr int64_t kMaxBlocks = 65535;
// Split a reduction when it would otherwise run fewer blocks than this...
constexpr int64_t kMinParallelBlocks = 512;
// ...into pieces of at least this many reduced rows (or row elements).
constexpr int64_t kMinPiece = 2048;

// The ends of T's range (infinities for floats). Not std::numeric_limits: its members are
// constexpr host functions, which nvcc rejects in device code without --expt-relaxed-constexpr.
__device__ void Range(float* lo, float* hi) {
  *hi = __int_as_float(0x7f800000);
  *lo = -*hi;
}
__device__ void Range(double* lo, double* hi) {
  *hi = __longlong_as_double(0x7ff0000000000000LL);
  *lo = -*hi;
}
__device__ void Range(int32_t* lo, int32_t* hi) {
  *lo = INT32_MIN;
  *hi = INT32_MAX;
}
__device__ void Range(int64_t* lo, int64_t* hi) {
  *lo = INT64_MIN;
  *hi = INT64_MAX;
}
// Bools (All as Min, Any as Max): false and true.
__device__ void Range(uint8_t* lo, uint8_t* hi) {
  *lo = 0;
  *hi = 1;
}

// __shfl_down_sync has no overload for bytes: shuffle them as ints.
template <typename T>
__device__ T ShuffleDown(T v, int offset) {
  if constexpr (sizeof(T) < 4) {
    return static_cast<T>(__shfl_down_sync(0xffffffffu, static_cast<int>(v), offset));
  } else {
    return __shfl_down_sync(0xffffffffu, v, offset);
  }
}

template <typename T>
struct SumR {
  __device__ static T Identity() { return T(0); }
  __device__ static T Combine(T a, T b) { return WrapAdd(a, b); }
};
template <typename T>
struct ProdR {
  __device__ static T Identity() { return T(1); }
  __device__ static T Combine(T a, T b) { return WrapMul(a, b); }
};
// Max and Min propagate NaN: a NaN operand wins, whatever the order (as reducers.h).
template <typename T>
struct MaxR {
  __device__ static T Identity() {
    T lo, hi;
    Range(&lo, &hi);
    return lo;
  }
  __device__ static T Combine(T a, T b) { return (a > b || a != a) ? a : b; }
};
template <typename T>
struct MinR {
  __device__ static T Identity() {
    T lo, hi;
    Range(&lo, &hi);
    return hi;
  }
  __device__ static T Combine(T a, T b) { return (a < b || a != a) ? a : b; }
};

template <typename T>
__device__ T Finish(T v, bool mean, int64_t count) {
  if (!mean) return v;
  if constexpr (std::is_integral_v<T>) {
    return count == 0 ? T(0) : static_cast<T>(v / static_cast<T>(count));
  } else {
    return v / static_cast<T>(count);
  }
}

// The block's reduction of every thread's `v`, valid in thread 0. `shared` holds kWarps values;
// the caller syncs before reusing it.
template <typename R, typename T>
__device__ T BlockReduce(T v, T* shared) {
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int lane = tid % 32, warp = tid / 32;
  for (int offset = 16; offset > 0; offset /= 2) {
    v = R::Combine(v, ShuffleDown(v, offset));
  }
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < kWarps ? shared[lane] : R::Identity();
    for (int offset = 16; offset > 0; offset /= 2) {
      v = R::Combine(v, ShuffleDown(v, offset));
    }
  }
  return v;
}

// Rows (inner == 1): block u reduces piece p = u % pieces of row o = u / pieces, elements
// [p * chunk, min(n, (p + 1) * chunk)), into dst[u].
template <typename R, typename T>
__global__ void RowReduceKernel(const T* src, T* dst, int64_t outer, int64_t n, int64_t pieces,
                                int64_t chunk, bool mean, int64_t count) {
  __shared__ T shared[kWarps];
  for (int64_t u = blockIdx.x; u < outer * pieces; u += gridDim.x) {
    const int64_t o = u / pieces, begin = (u % pieces) * chunk;
    const int64_t end = begin + chunk < n ? begin + chunk : n;
    const T* row = src + o * n;
    T v = R::Identity();
    for (int64_t i = begin + threadIdx.x; i < end; i += kThreads) v = R::Combine(v, row[i]);
    v = BlockReduce<R>(v, shared);
    if (threadIdx.x == 0) dst[u] = Finish(v, mean, count);
    __syncthreads();  // `shared` is reused by the next row
  }
}

// Columns (inner > 1): a block of 32 x 8 threads reduces 32 adjacent columns of one row piece;
// each warp reads 32 contiguous elements per row. Block u is (o, p, column tile); the result for
// (o, p, j) goes to dst[(o * pieces + p) * inner + j].
template <typename R, typename T>
__global__ void ColumnReduceKernel(const T* src, T* dst, int64_t outer, int64_t n, int64_t inner,
                                   int64_t pieces, int64_t chunk, bool mean, int64_t count) {
  __shared__ T shared[kColumnRows][kColumns + 1];
  const int64_t tiles = (inner + kColumns - 1) / kColumns;
  for (int64_t u = blockIdx.x; u < outer * pieces * tiles; u += gridDim.x) {
    const int64_t op = u / tiles, j = (u % tiles) * kColumns + threadIdx.x;
    const int64_t o = op / pieces, begin = (op % pieces) * chunk;
    const int64_t end = begin + chunk < n ? begin + chunk : n;
    T v = R::Identity();
    if (j < inner) {
      const T* col = src + o * n * inner + j;
      for (int64_t r = begin + threadIdx.y; r < end; r += kColumnRows) {
        v = R::Combine(v, col[r * inner]);
      }
    }
    shared[threadIdx.y][threadIdx.x] = v;
    __syncthreads();
    if (threadIdx.y == 0 && j < inner) {
      for (int k = 1; k < kColumnRows; ++k) v = R::Combine(v, shared[k][threadIdx.x]);
      dst[op * inner + j] = Finish(v, mean, count);
    }
    __syncthreads();
  }
}

int GridFor(int64_t units) {
  return static_cast<int>(std::max<int64_t>(1, std::min(units, kMaxBlocks)));
}

// How many pieces each reduction splits into (1: no split).
int64_t PiecesFor(int64_t outer, int64_t reduce, int64_t inner) {
  const int64_t units = inner == 1 ? outer : outer * ((inner + kColumns - 1) / kColumns);
  if (units >= kMinParallelBlocks || reduce < 2 * kMinPiece) return 1;
  const int64_t want = (kMinParallelBlocks + units - 1) / units;
  return std::max<int64_t>(1, std::min(want, reduce / kMinPiece));
}

template <typename R, typename T>
void Pass(const T* src, T* dst, int64_t outer, int64_t reduce, int64_t inner, int64_t pieces,
          bool mean, int64_t count, cudaStream_t stream) {
  const int64_t chunk = pieces == 1 ? reduce : (reduce + pieces - 1) / pieces;
  if (inner == 1) {
    RowReduceKernel<R, T><<<GridFor(outer * pieces), kThreads, 0, stream>>>(
        src, dst, outer, reduce, pieces, chunk, mean, count);
  } else {
    const int64_t tiles = (inner + kColumns - 1) / kColumns;
    ColumnReduceKernel<R, T>
        <<<GridFor(outer * pieces * tiles), dim3(kColumns, kColumnRows), 0, stream>>>(
            src, dst, outer, reduce, inner, pieces, chunk, mean, count);
  }
}

template <template <typename> class R, typename T>
cudaError_t Reduce(const void* src, void* dst, int64_t outer, int64_t reduce, int64_t inner,
                   bool mean, int64_t count, void* scratch, cudaStream_t stream) {
  if (outer * inner <= 0) return cudaSuccess;
  const int64_t pieces = PiecesFor(outer, reduce, inner);
  const T* s = static_cast<const T*>(src);
  T* d = static_cast<T*>(dst);
  if (pieces == 1) {
    Pass<R<T>, T>(s, d, outer, reduce, inner, 1, mean, count, stream);
  } else {
    T* partial = static_cast<T*>(scratch);
    Pass<R<T>, T>(s, partial, outer, reduce, inner, pieces, false, 0, stream);
    Pass<R<T>, T>(partial, d, outer, pieces, inner, 1, mean, count, stream);
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t ReduceTyped(ReduceOp op, const void* src, void* dst, int64_t outer, int64_t reduce,
                        int64_t inner, bool mean, int64_t count, void* scratch,
                        cudaStream_t stream) {
  switch (op) {
    case ReduceOp::kSum:
      return Reduce<SumR, T>(src, dst, outer, reduce, inner, mean, count, scratch, stream);
    case ReduceOp::kProd:
      return Reduce<ProdR, T>(src, dst, outer, reduce, inner, mean, count, scratch, stream);
    case ReduceOp::kMax:
      return Reduce<MaxR, T>(src, dst, outer, reduce, inner, mean, count, scratch, stream);
    case ReduceOp::kMin:
      return Reduce<MinR, T>(src, dst, outer, reduce, inner, mean, count, scratch, stream);
  }
  return cudaErrorInvalidValue;
}

int ElemSize(ReduceType type) {
  if (type == ReduceType::kBool) return 1;
  return type == ReduceType::kFloat64 || type == ReduceType::kInt64 ? 8 : 4;
}

// ---- ArgMax / ArgMin ----

// A candidate: value and index; index < 0 is "no element yet" and loses to anything.
template <typename T>
struct Best {
  T v;
  int64_t i;
};

// The better of two candidates: the extreme value, a NaN over any number, and on ties (or two
// NaNs) the smaller index, so that the result is the first such element whatever the order.
template <bool kMax, typename T>
__device__ Best<T> Pick(Best<T> a, Best<T> b) {
  if (a.i < 0) return b;
  if (b.i < 0) return a;
  const bool a_nan = a.v != a.v, b_nan = b.v != b.v;
  if (a_nan || b_nan) {
    if (a_nan && b_nan) return a.i < b.i ? a : b;
    return a_nan ? a : b;
  }
  if (kMax ? a.v > b.v : a.v < b.v) return a;
  if (kMax ? b.v > a.v : b.v < a.v) return b;
  return a.i < b.i ? a : b;
}

template <bool kMax, typename T, typename Index>
__global__ void ArgRowKernel(const T* src, Index* out, int64_t outer, int64_t n) {
  __shared__ T shared_v[kWarps];
  __shared__ int64_t shared_i[kWarps];
  for (int64_t o = blockIdx.x; o < outer; o += gridDim.x) {
    const T* row = src + o * n;
    Best<T> best{T(0), -1};
    for (int64_t k = threadIdx.x; k < n; k += kThreads) best = Pick<kMax>(best, Best<T>{row[k], k});
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int offset = 16; offset > 0; offset /= 2) {
      const Best<T> other{__shfl_down_sync(0xffffffffu, best.v, offset),
                          __shfl_down_sync(0xffffffffu, best.i, offset)};
      best = Pick<kMax>(best, other);
    }
    if (lane == 0) {
      shared_v[warp] = best.v;
      shared_i[warp] = best.i;
    }
    __syncthreads();
    if (warp == 0) {
      best = lane < kWarps ? Best<T>{shared_v[lane], shared_i[lane]} : Best<T>{T(0), -1};
      for (int offset = 16; offset > 0; offset /= 2) {
        const Best<T> other{__shfl_down_sync(0xffffffffu, best.v, offset),
                            __shfl_down_sync(0xffffffffu, best.i, offset)};
        best = Pick<kMax>(best, other);
      }
      if (lane == 0) out[o] = static_cast<Index>(best.i);
    }
    __syncthreads();
  }
}

// Columns: one thread per output (o, j), scanning k in order (neighbouring threads read
// neighbouring elements).
template <bool kMax, typename T, typename Index>
__global__ void ArgColumnKernel(const T* src, Index* out, int64_t outer, int64_t n, int64_t inner) {
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < outer * inner;
       e += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const int64_t o = e / inner, j = e % inner;
    const T* col = src + o * n * inner + j;
    Best<T> best{col[0], 0};
    for (int64_t k = 1; k < n; ++k) best = Pick<kMax>(best, Best<T>{col[k * inner], k});
    out[e] = static_cast<Index>(best.i);
  }
}

template <bool kMax, typename T, typename Index>
void Arg(const void* src, void* out, int64_t outer, int64_t n, int64_t inner, cudaStream_t stream) {
  const T* s = static_cast<const T*>(src);
  Index* o = static_cast<Index*>(out);
  if (inner == 1) {
    ArgRowKernel<kMax, T, Index><<<GridFor(outer), kThreads, 0, stream>>>(s, o, outer, n);
  } else {
    ArgColumnKernel<kMax, T, Index>
        <<<GridFor((outer * inner + kThreads - 1) / kThreads), kThreads, 0, stream>>>(s, o, outer,
                                                                                      n, inner);
  }
}

// One thread per column (o, j) of the (outer, n, inner) view: the running combination down its
// n rows in the CPU's order (LaunchScan in reduce_kernels.h), so the results agree exactly.
template <typename R, typename T>
__global__ void ScanKernel(const T* __restrict__ src, T* __restrict__ dst, int64_t outer, int64_t n,
                           int64_t inner, bool exclusive, bool reverse) {
  const int64_t columns = outer * inner;
  for (int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; c < columns;
       c += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = c / inner, j = c % inner;
    const T* in = src + o * n * inner + j;
    T* out = dst + o * n * inner + j;
    T acc = R::Identity();
    for (int64_t step = 0; step < n; ++step) {
      const int64_t k = (reverse ? n - 1 - step : step) * inner;
      if (exclusive) {
        out[k] = acc;
        acc = R::Combine(acc, in[k]);
      } else {
        acc = R::Combine(acc, in[k]);
        out[k] = acc;
      }
    }
  }
}

template <typename T>
void ScanTyped(bool prod, const void* src, void* dst, int64_t outer, int64_t n, int64_t inner,
               bool exclusive, bool reverse, cudaStream_t stream) {
  const int64_t columns = outer * inner;
  const int blocks =
      static_cast<int>(std::min<int64_t>((columns + kThreads - 1) / kThreads, kMaxBlocks));
  const T* in = static_cast<const T*>(src);
  T* out = static_cast<T*>(dst);
  if (prod) {
    ScanKernel<ProdR<T>, T>
        <<<blocks, kThreads, 0, stream>>>(in, out, outer, n, inner, exclusive, reverse);
  } else {
    ScanKernel<SumR<T>, T>
        <<<blocks, kThreads, 0, stream>>>(in, out, outer, n, inner, exclusive, reverse);
  }
}

template <typename T>
void ArgTyped(bool is_max, const void* src, void* out, bool out64, int64_t outer, int64_t n,
              int64_t inner, cudaStream_t stream) {
  if (is_max) {
    out64 ? Arg<true, T, int64_t>(src, out, outer, n, inner, stream)
          : Arg<true, T, int32_t>(src, out, outer, n, inner, stream);
  } else {
    out64 ? Arg<false, T, int64_t>(src, out, outer, n, inner, stream)
          : Arg<false, T, int32_t>(src, out, outer, n, inner, stream);
  }
}

}  // namespace

int64_t ReducePassScratchBytes(ReduceType type, int64_t outer, int64_t reduce, int64_t inner) {
  const int64_t pieces = PiecesFor(outer, reduce, inner);
  return pieces == 1 ? 0 : outer * pieces * inner * ElemSize(type);
}

cudaError_t LaunchReducePass(ReduceOp op, ReduceType type, const void* src, void* dst,
                             int64_t outer, int64_t reduce, int64_t inner, bool mean,
                             int64_t mean_count, void* scratch, cudaStream_t stream) {
  switch (type) {
    case ReduceType::kFloat32:
      return ReduceTyped<float>(op, src, dst, outer, reduce, inner, mean, mean_count, scratch,
                                stream);
    case ReduceType::kFloat64:
      return ReduceTyped<double>(op, src, dst, outer, reduce, inner, mean, mean_count, scratch,
                                 stream);
    case ReduceType::kInt32:
      return ReduceTyped<int32_t>(op, src, dst, outer, reduce, inner, mean, mean_count, scratch,
                                  stream);
    case ReduceType::kInt64:
      return ReduceTyped<int64_t>(op, src, dst, outer, reduce, inner, mean, mean_count, scratch,
                                  stream);
    case ReduceType::kBool:
      if (op == ReduceOp::kMax) {
        return Reduce<MaxR, uint8_t>(src, dst, outer, reduce, inner, false, 0, scratch, stream);
      }
      if (op == ReduceOp::kMin) {
        return Reduce<MinR, uint8_t>(src, dst, outer, reduce, inner, false, 0, scratch, stream);
      }
      return cudaErrorInvalidValue;
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchArgReduce(bool is_max, ReduceType type, const void* src, void* out,
                            bool out_is_int64, int64_t outer, int64_t n, int64_t inner,
                            cudaStream_t stream) {
  if (outer * inner <= 0 || n <= 0) return cudaSuccess;
  switch (type) {
    case ReduceType::kFloat32:
      ArgTyped<float>(is_max, src, out, out_is_int64, outer, n, inner, stream);
      break;
    case ReduceType::kFloat64:
      ArgTyped<double>(is_max, src, out, out_is_int64, outer, n, inner, stream);
      break;
    case ReduceType::kInt32:
      ArgTyped<int32_t>(is_max, src, out, out_is_int64, outer, n, inner, stream);
      break;
    case ReduceType::kInt64:
      ArgTyped<int64_t>(is_max, src, out, out_is_int64, outer, n, inner, stream);
      break;
    case ReduceType::kBool:
      return cudaErrorInvalidValue;  // ArgMax and ArgMin take no bools
  }
  return cudaGetLastError();
}

cudaError_t LaunchScan(bool prod, ReduceType type, const void* src, void* dst, int64_t outer,
                       int64_t n, int64_t inner, bool exclusive, bool reverse,
                       cudaStream_t stream) {
  if (outer * n * inner <= 0) return cudaSuccess;
  switch (type) {
    case ReduceType::kFloat32:
      ScanTyped<float>(prod, src, dst, outer, n, inner, exclusive, reverse, stream);
      break;
    case ReduceType::kFloat64:
      ScanTyped<double>(prod, src, dst, outer, n, inner, exclusive, reverse, stream);
      break;
    case ReduceType::kInt32:
      ScanTyped<int32_t>(prod, src, dst, outer, n, inner, exclusive, reverse, stream);
      break;
    case ReduceType::kInt64:
      ScanTyped<int64_t>(prod, src, dst, outer, n, inner, exclusive, reverse, stream);
      break;
    case ReduceType::kBool:
      return cudaErrorInvalidValue;  // Cumsum and Cumprod take no bools
  }
  return cudaGetLastError();
}

}  // namespace duet::cuda
