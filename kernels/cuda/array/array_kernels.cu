#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <type_traits>

#include "kernels/common/mirror_sources.h"
#include "kernels/cuda/array/array_kernels.h"

namespace duet::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 8192;

int Blocks(int64_t work) {
  return static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>((work + kThreads - 1) / kThreads, kMaxBlocks)));
}

#define DUET_GRID_STRIDE_LOOP(i, n)                                                      \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

// Calls fn(U{}) with the unsigned type of `elem_size` bytes; false for other sizes.
template <typename Fn>
bool VisitElemSize(int elem_size, Fn&& fn) {
  switch (elem_size) {
    case 1:
      fn(uint8_t{});
      return true;
    case 2:
      fn(uint16_t{});
      return true;
    case 4:
      fn(uint32_t{});
      return true;
    case 8:
      fn(uint64_t{});
      return true;
    default:
      return false;
  }
}

template <typename U>
__device__ U Read(ScalarBits v) {
  return v.device != nullptr ? *static_cast<const U*>(v.device) : static_cast<U>(v.bits);
}

template <typename U>
__global__ void FillScalarKernel(U* out, int64_t n, ScalarBits value) {
  const U v = Read<U>(value);
  DUET_GRID_STRIDE_LOOP(i, n) { out[i] = v; }
}

template <typename T, typename Wide>
__global__ void RangeKernel(T* out, int64_t n, Wide start, Wide delta) {
  DUET_GRID_STRIDE_LOOP(i, n) {
    if constexpr (std::is_integral<Wide>::value) {
      out[i] = static_cast<T>(static_cast<uint64_t>(start) +
                              static_cast<uint64_t>(i) * static_cast<uint64_t>(delta));
    } else {
      out[i] = static_cast<T>(start + static_cast<double>(i) * delta);
    }
  }
}

template <typename T, typename Wide>
cudaError_t Range(T* out, int64_t n, Wide start, Wide delta, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  RangeKernel<T, Wide><<<Blocks(n), kThreads, 0, stream>>>(out, n, start, delta);
  return cudaGetLastError();
}

// One thread per element: its row-major position in dims gives both offsets.
template <typename U>
__global__ void StridedCopyKernel(StridedCopyDims d, int64_t n, const U* src, U* dst) {
  DUET_GRID_STRIDE_LOOP(i, n) {
    int64_t rest = i, s = 0, t = 0;
    for (int k = d.rank - 1; k >= 0; --k) {
      const int64_t idx = rest % d.dims[k];
      rest /= d.dims[k];
      s += idx * d.src_strides[k];
      t += idx * d.dst_strides[k];
    }
    dst[t] = src[s];
  }
}

constexpr int kTile = 32;
constexpr int kTileRows = 8;  // a block of 32 x 8 threads moves a 32 x 32 tile

// Each block walks tiles (grid-stride over batch x row tiles x column tiles): it reads a tile
// along the input's rows and writes it transposed along the output's rows. The +1 column keeps
// the transposed reads from shared memory free of bank conflicts.
template <typename U>
__global__ void BatchTransposeKernel(const U* src, U* dst, int64_t batch, int64_t rows,
                                     int64_t cols) {
  __shared__ U tile[kTile][kTile + 1];
  const int64_t tiles_r = (rows + kTile - 1) / kTile, tiles_c = (cols + kTile - 1) / kTile;
  const int64_t per_batch = tiles_r * tiles_c, total = batch * per_batch;
  for (int64_t t = blockIdx.x; t < total; t += gridDim.x) {
    const int64_t b = t / per_batch, tr = (t % per_batch) / tiles_c, tc = t % tiles_c;
    const U* s = src + b * rows * cols;
    U* o = dst + b * rows * cols;
    for (int y = threadIdx.y; y < kTile; y += kTileRows) {
      const int64_t r = tr * kTile + y, c = tc * kTile + threadIdx.x;
      if (r < rows && c < cols) tile[y][threadIdx.x] = s[r * cols + c];
    }
    __syncthreads();
    for (int y = threadIdx.y; y < kTile; y += kTileRows) {
      const int64_t c = tc * kTile + y, r = tr * kTile + threadIdx.x;
      if (c < cols && r < rows) o[c * rows + r] = tile[threadIdx.x][y];
    }
    __syncthreads();  // the tile is reused by the next iteration
  }
}

template <typename U, typename Index>
__global__ void GatherKernel(const U* params, const Index* indices, U* out, int64_t total,
                             int64_t outer_per_batch, int64_t n, int64_t inner,
                             int64_t num_indices) {
  DUET_GRID_STRIDE_LOOP(e, total) {
    const int64_t row = e / inner, c = e % inner;
    const int64_t o = row / num_indices, m = row % num_indices;  // o = batch * outer + outer index
    const int64_t v = static_cast<int64_t>(indices[(o / outer_per_batch) * num_indices + m]);
    out[e] = (v >= 0 && v < n) ? params[(o * n + v) * inner + c] : U(0);
  }
}

template <typename U, typename Index>
__global__ void OneHotKernel(const Index* indices, U* out, int64_t total, int64_t depth,
                             int64_t inner, ScalarBits on_value, ScalarBits off_value) {
  const U on = Read<U>(on_value), off = Read<U>(off_value);
  DUET_GRID_STRIDE_LOOP(e, total) {
    const int64_t j = e % inner, od = e / inner;
    const int64_t d = od % depth, o = od / depth;
    out[e] = static_cast<int64_t>(indices[o * inner + j]) == d ? on : off;
  }
}

// The atomic add of each element type into its accumulator.
__device__ void AtomicAddTo(float* acc, float v) { atomicAdd(acc, v); }
__device__ void AtomicAddTo(double* acc, double v) { atomicAdd(acc, v); }
__device__ void AtomicAddTo(float* acc, __half v) { atomicAdd(acc, __half2float(v)); }
__device__ void AtomicAddTo(float* acc, __nv_bfloat16 v) { atomicAdd(acc, __bfloat162float(v)); }
__device__ void AtomicAddTo(int32_t* acc, int32_t v) {
  atomicAdd(reinterpret_cast<unsigned int*>(acc), static_cast<unsigned int>(v));
}
__device__ void AtomicAddTo(int64_t* acc, int64_t v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(acc),  // NOLINT(runtime/int): CUDA's type
            static_cast<unsigned long long>(v));         // NOLINT(runtime/int)
}

template <typename T, typename Acc, typename Index>
__global__ void SegmentSumKernel(const T* data, const Index* ids, Acc* acc, int64_t total,
                                 int64_t inner, int64_t num_segments) {
  DUET_GRID_STRIDE_LOOP(e, total) {
    const int64_t id = static_cast<int64_t>(ids[e / inner]);
    if (id >= 0 && id < num_segments) AtomicAddTo(acc + id * inner + e % inner, data[e]);
  }
}

template <typename T, typename Index>
__global__ void BincountKernel(const Index* values, const T* weights, bool binary, T* out,
                               int64_t total, int64_t per_row, int64_t size) {
  DUET_GRID_STRIDE_LOOP(e, total) {
    const int64_t v = static_cast<int64_t>(values[e]);
    if (v < 0 || v >= size) continue;
    T* bin = out + (e / per_row) * size + v;
    if (binary) {
      *bin = T(1);  // every writer writes the same value
    } else {
      AtomicAddTo(bin, weights != nullptr ? weights[e] : T(1));
    }
  }
}

template <typename T>
cudaError_t Bincount(const void* values, bool values64, const void* weights, bool binary, void* out,
                     int64_t rows, int64_t per_row, int64_t size, cudaStream_t stream) {
  T* o = static_cast<T*>(out);
  cudaError_t status = cudaMemsetAsync(o, 0, rows * size * sizeof(T), stream);
  const int64_t total = rows * per_row;
  if (status != cudaSuccess || total == 0 || size == 0) return status;
  const T* w = static_cast<const T*>(weights);
  if (values64) {
    BincountKernel<T><<<Blocks(total), kThreads, 0, stream>>>(static_cast<const int64_t*>(values),
                                                              w, binary, o, total, per_row, size);
  } else {
    BincountKernel<T><<<Blocks(total), kThreads, 0, stream>>>(static_cast<const int32_t*>(values),
                                                              w, binary, o, total, per_row, size);
  }
  return cudaGetLastError();
}

__device__ void FromFloat(float v, __half* out) { *out = __float2half_rn(v); }
__device__ void FromFloat(float v, __nv_bfloat16* out) { *out = __float2bfloat16_rn(v); }

template <typename T>
__global__ void RoundFromFloatKernel(const float* acc, T* out, int64_t n) {
  DUET_GRID_STRIDE_LOOP(i, n) { FromFloat(acc[i], &out[i]); }
}

template <typename T, typename Acc>
cudaError_t SegmentSum(const void* data, const void* ids, bool ids64, Acc* acc, int64_t rows,
                       int64_t inner, int64_t num_segments, cudaStream_t stream) {
  cudaError_t status = cudaMemsetAsync(acc, 0, num_segments * inner * sizeof(Acc), stream);
  if (status != cudaSuccess) return status;
  const int64_t total = rows * inner;
  if (total == 0) return cudaSuccess;
  const T* x = static_cast<const T*>(data);
  if (ids64) {
    SegmentSumKernel<T, Acc><<<Blocks(total), kThreads, 0, stream>>>(
        x, static_cast<const int64_t*>(ids), acc, total, inner, num_segments);
  } else {
    SegmentSumKernel<T, Acc><<<Blocks(total), kThreads, 0, stream>>>(
        x, static_cast<const int32_t*>(ids), acc, total, inner, num_segments);
  }
  return cudaGetLastError();
}

// The 16-bit float types: sums in float scratch, then one rounding per output element.
template <typename T>
cudaError_t SegmentSumHalf(const void* data, const void* ids, bool ids64, void* out, float* scratch,
                           int64_t rows, int64_t inner, int64_t num_segments, cudaStream_t stream) {
  cudaError_t status =
      SegmentSum<T, float>(data, ids, ids64, scratch, rows, inner, num_segments, stream);
  if (status != cudaSuccess) return status;
  const int64_t n = num_segments * inner;
  RoundFromFloatKernel<T><<<Blocks(n), kThreads, 0, stream>>>(scratch, static_cast<T*>(out), n);
  return cudaGetLastError();
}

// The element offset of row `row`'s slice, or -1 when a coordinate is out of range.
template <typename Index>
__device__ int64_t NdSliceOffset(const Index* indices, int64_t row, const NdIndexDims& nd,
                                 int64_t slice_size) {
  const Index* r = indices + row * nd.depth;
  int64_t offset = 0;
  for (int j = 0; j < nd.depth; ++j) {
    const int64_t v = static_cast<int64_t>(r[j]);
    if (v < 0 || v >= nd.dims[j]) return -1;
    offset += v * nd.strides[j];
  }
  return offset * slice_size;
}

template <typename U, typename Index>
__global__ void GatherNdKernel(const U* params, const Index* indices, U* out, int64_t total,
                               NdIndexDims nd, int64_t slice_size) {
  DUET_GRID_STRIDE_LOOP(e, total) {
    const int64_t offset = NdSliceOffset(indices, e / slice_size, nd, slice_size);
    out[e] = offset >= 0 ? params[offset + e % slice_size] : U(0);
  }
}

template <typename U, typename Index>
__global__ void ScatterNdUpdateKernel(const U* updates, const Index* indices, U* out, int64_t total,
                                      NdIndexDims nd, int64_t slice_size) {
  DUET_GRID_STRIDE_LOOP(e, total) {
    const int64_t offset = NdSliceOffset(indices, e / slice_size, nd, slice_size);
    if (offset >= 0) out[offset + e % slice_size] = updates[e];
  }
}

template <typename T, typename Acc, typename Index>
__global__ void ScatterNdAddKernel(const T* updates, const Index* indices, Acc* acc, int64_t total,
                                   NdIndexDims nd, int64_t slice_size) {
  DUET_GRID_STRIDE_LOOP(e, total) {
    const int64_t offset = NdSliceOffset(indices, e / slice_size, nd, slice_size);
    if (offset >= 0) AtomicAddTo(acc + offset + e % slice_size, updates[e]);
  }
}

__device__ float ToFloat(__half v) { return __half2float(v); }
__device__ float ToFloat(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__global__ void WidenToFloatKernel(const T* in, float* out, int64_t n) {
  DUET_GRID_STRIDE_LOOP(i, n) { out[i] = ToFloat(in[i]); }
}

template <typename T, typename Acc>
cudaError_t ScatterNdAdd(const void* updates, const void* indices, bool idx64, Acc* acc,
                         const NdIndexDims& nd, int64_t num_rows, int64_t slice_size,
                         cudaStream_t stream) {
  const int64_t total = num_rows * slice_size;
  if (total <= 0) return cudaSuccess;
  const T* u = static_cast<const T*>(updates);
  if (idx64) {
    ScatterNdAddKernel<T, Acc><<<Blocks(total), kThreads, 0, stream>>>(
        u, static_cast<const int64_t*>(indices), acc, total, nd, slice_size);
  } else {
    ScatterNdAddKernel<T, Acc><<<Blocks(total), kThreads, 0, stream>>>(
        u, static_cast<const int32_t*>(indices), acc, total, nd, slice_size);
  }
  return cudaGetLastError();
}

// The 16-bit float types: widened into float scratch, added there, rounded once.
template <typename T>
cudaError_t ScatterNdAddHalf(const void* updates, const void* indices, bool idx64, void* out,
                             float* scratch, int64_t out_size, const NdIndexDims& nd,
                             int64_t num_rows, int64_t slice_size, cudaStream_t stream) {
  T* o = static_cast<T*>(out);
  WidenToFloatKernel<T><<<Blocks(out_size), kThreads, 0, stream>>>(o, scratch, out_size);
  cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) return status;
  status =
      ScatterNdAdd<T, float>(updates, indices, idx64, scratch, nd, num_rows, slice_size, stream);
  if (status != cudaSuccess) return status;
  RoundFromFloatKernel<T><<<Blocks(out_size), kThreads, 0, stream>>>(scratch, o, out_size);
  return cudaGetLastError();
}

template <typename T>
struct MirrorAcc {
  using type = T;
};
template <>
struct MirrorAcc<__half> {
  using type = float;
};
template <>
struct MirrorAcc<__nv_bfloat16> {
  using type = float;
};

__device__ float ToAcc(__half v) { return __half2float(v); }
__device__ float ToAcc(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T>
__device__ T ToAcc(T v) {
  return v;
}
__device__ void FromAcc(float v, __half* out) { *out = __float2half_rn(v); }
__device__ void FromAcc(float v, __nv_bfloat16* out) { *out = __float2bfloat16_rn(v); }
template <typename T>
__device__ void FromAcc(T v, T* out) {
  *out = v;
}

template <typename T>
__global__ void MirrorPadGradKernel(MirrorPadGradDims dims, const T* dy, T* out, int64_t n) {
  DUET_GRID_STRIDE_LOOP(flat, n) {
    int64_t sources[kMaxCopyRank][3];
    int counts[kMaxCopyRank];
    int64_t rest = flat, stride = 1;
    for (int d = dims.rank - 1; d >= 0; --d) {
      const int64_t i = rest % dims.out_dims[d];
      rest /= dims.out_dims[d];
      counts[d] = duet::MirrorSources(i, dims.out_dims[d], dims.before[d], dims.after[d],
                                      dims.symmetric, sources[d]);
      for (int k = 0; k < counts[d]; ++k) sources[d][k] *= stride;
      stride *= dims.out_dims[d] + dims.before[d] + dims.after[d];
    }
    int pick[kMaxCopyRank] = {};
    typename MirrorAcc<T>::type sum = 0;
    while (true) {
      int64_t at = 0;
      for (int d = 0; d < dims.rank; ++d) at += sources[d][pick[d]];
      sum += ToAcc(dy[at]);
      int d = dims.rank - 1;
      while (d >= 0 && ++pick[d] == counts[d]) pick[d--] = 0;
      if (d < 0) break;
    }
    FromAcc(sum, &out[flat]);
  }
}

template <typename T>
cudaError_t MirrorPadGrad(const MirrorPadGradDims& dims, const void* dy, void* out, int64_t n,
                          cudaStream_t stream) {
  MirrorPadGradKernel<T><<<Blocks(n), kThreads, 0, stream>>>(dims, static_cast<const T*>(dy),
                                                             static_cast<T*>(out), n);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchFillScalar(void* out, int64_t n, int elem_size, ScalarBits value,
                             cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (!VisitElemSize(elem_size, [&](auto u) {
        using U = decltype(u);
        FillScalarKernel<U><<<Blocks(n), kThreads, 0, stream>>>(static_cast<U*>(out), n, value);
      })) {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t LaunchRange(float* out, int64_t n, double start, double delta, cudaStream_t stream) {
  return Range(out, n, start, delta, stream);
}
cudaError_t LaunchRange(double* out, int64_t n, double start, double delta, cudaStream_t stream) {
  return Range(out, n, start, delta, stream);
}
cudaError_t LaunchRange(int32_t* out, int64_t n, int64_t start, int64_t delta,
                        cudaStream_t stream) {
  return Range(out, n, start, delta, stream);
}
cudaError_t LaunchRange(int64_t* out, int64_t n, int64_t start, int64_t delta,
                        cudaStream_t stream) {
  return Range(out, n, start, delta, stream);
}

cudaError_t LaunchStridedCopy(const StridedCopyDims& dims, const void* src, void* dst,
                              int elem_size, cudaStream_t stream) {
  if (dims.rank < 0 || dims.rank > kMaxCopyRank) return cudaErrorInvalidValue;
  int64_t n = 1;
  for (int k = 0; k < dims.rank; ++k) n *= dims.dims[k];
  if (n <= 0) return cudaSuccess;
  if (!VisitElemSize(elem_size, [&](auto u) {
        using U = decltype(u);
        StridedCopyKernel<U><<<Blocks(n), kThreads, 0, stream>>>(
            dims, n, static_cast<const U*>(src), static_cast<U*>(dst));
      })) {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t LaunchBatchTranspose(const void* src, void* dst, int64_t batch, int64_t rows,
                                 int64_t cols, int elem_size, cudaStream_t stream) {
  if (batch <= 0 || rows <= 0 || cols <= 0) return cudaSuccess;
  const int64_t tiles = batch * ((rows + kTile - 1) / kTile) * ((cols + kTile - 1) / kTile);
  const int blocks = static_cast<int>(std::min<int64_t>(tiles, 65535));
  if (!VisitElemSize(elem_size, [&](auto u) {
        using U = decltype(u);
        BatchTransposeKernel<U><<<blocks, dim3(kTile, kTileRows), 0, stream>>>(
            static_cast<const U*>(src), static_cast<U*>(dst), batch, rows, cols);
      })) {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t LaunchGather(const void* params, const void* indices, bool indices_are_int64, void* out,
                         int64_t batch, int64_t outer, int64_t n, int64_t inner,
                         int64_t num_indices, int elem_size, cudaStream_t stream) {
  const int64_t total = batch * outer * num_indices * inner;
  if (total <= 0) return cudaSuccess;
  if (!VisitElemSize(elem_size, [&](auto u) {
        using U = decltype(u);
        const U* p = static_cast<const U*>(params);
        U* o = static_cast<U*>(out);
        if (indices_are_int64) {
          GatherKernel<U><<<Blocks(total), kThreads, 0, stream>>>(
              p, static_cast<const int64_t*>(indices), o, total, outer, n, inner, num_indices);
        } else {
          GatherKernel<U><<<Blocks(total), kThreads, 0, stream>>>(
              p, static_cast<const int32_t*>(indices), o, total, outer, n, inner, num_indices);
        }
      })) {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t LaunchOneHot(const void* indices, bool indices_are_int64, void* out, int64_t outer,
                         int64_t depth, int64_t inner, ScalarBits on_value, ScalarBits off_value,
                         int elem_size, cudaStream_t stream) {
  const int64_t total = outer * depth * inner;
  if (total <= 0) return cudaSuccess;
  if (!VisitElemSize(elem_size, [&](auto u) {
        using U = decltype(u);
        U* o = static_cast<U*>(out);
        if (indices_are_int64) {
          OneHotKernel<U><<<Blocks(total), kThreads, 0, stream>>>(
              static_cast<const int64_t*>(indices), o, total, depth, inner, on_value, off_value);
        } else {
          OneHotKernel<U><<<Blocks(total), kThreads, 0, stream>>>(
              static_cast<const int32_t*>(indices), o, total, depth, inner, on_value, off_value);
        }
      })) {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t LaunchUnsortedSegmentSum(SegmentSumType type, const void* data, const void* ids,
                                     bool ids_are_int64, void* out, float* float_scratch,
                                     int64_t rows, int64_t inner, int64_t num_segments,
                                     cudaStream_t stream) {
  if (num_segments * inner <= 0) return cudaSuccess;
  switch (type) {
    case SegmentSumType::kFloat32:
      return SegmentSum<float, float>(data, ids, ids_are_int64, static_cast<float*>(out), rows,
                                      inner, num_segments, stream);
    case SegmentSumType::kFloat64:
      return SegmentSum<double, double>(data, ids, ids_are_int64, static_cast<double*>(out), rows,
                                        inner, num_segments, stream);
    case SegmentSumType::kInt32:
      return SegmentSum<int32_t, int32_t>(data, ids, ids_are_int64, static_cast<int32_t*>(out),
                                          rows, inner, num_segments, stream);
    case SegmentSumType::kInt64:
      return SegmentSum<int64_t, int64_t>(data, ids, ids_are_int64, static_cast<int64_t*>(out),
                                          rows, inner, num_segments, stream);
    case SegmentSumType::kFloat16:
      return SegmentSumHalf<__half>(data, ids, ids_are_int64, out, float_scratch, rows, inner,
                                    num_segments, stream);
    case SegmentSumType::kBFloat16:
      return SegmentSumHalf<__nv_bfloat16>(data, ids, ids_are_int64, out, float_scratch, rows,
                                           inner, num_segments, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchDenseBincount(SegmentSumType type, const void* values, bool values_are_int64,
                                const void* weights, bool binary, void* out, int64_t rows,
                                int64_t per_row, int64_t size, cudaStream_t stream) {
  switch (type) {
    case SegmentSumType::kFloat32:
      return Bincount<float>(values, values_are_int64, weights, binary, out, rows, per_row, size,
                             stream);
    case SegmentSumType::kFloat64:
      return Bincount<double>(values, values_are_int64, weights, binary, out, rows, per_row, size,
                              stream);
    case SegmentSumType::kInt32:
      return Bincount<int32_t>(values, values_are_int64, weights, binary, out, rows, per_row, size,
                               stream);
    case SegmentSumType::kInt64:
      return Bincount<int64_t>(values, values_are_int64, weights, binary, out, rows, per_row, size,
                               stream);
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchGatherNd(const void* params, const void* indices, bool indices_are_int64,
                           void* out, const NdIndexDims& nd, int64_t num_rows, int64_t slice_size,
                           int elem_size, cudaStream_t stream) {
  const int64_t total = num_rows * slice_size;
  if (total <= 0) return cudaSuccess;
  if (!VisitElemSize(elem_size, [&](auto u) {
        using U = decltype(u);
        const U* p = static_cast<const U*>(params);
        U* o = static_cast<U*>(out);
        if (indices_are_int64) {
          GatherNdKernel<U><<<Blocks(total), kThreads, 0, stream>>>(
              p, static_cast<const int64_t*>(indices), o, total, nd, slice_size);
        } else {
          GatherNdKernel<U><<<Blocks(total), kThreads, 0, stream>>>(
              p, static_cast<const int32_t*>(indices), o, total, nd, slice_size);
        }
      })) {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t LaunchScatterNdUpdate(const void* updates, const void* indices, bool indices_are_int64,
                                  void* out, const NdIndexDims& nd, int64_t num_rows,
                                  int64_t slice_size, int elem_size, cudaStream_t stream) {
  const int64_t total = num_rows * slice_size;
  if (total <= 0) return cudaSuccess;
  if (!VisitElemSize(elem_size, [&](auto u) {
        using U = decltype(u);
        const U* p = static_cast<const U*>(updates);
        U* o = static_cast<U*>(out);
        if (indices_are_int64) {
          ScatterNdUpdateKernel<U><<<Blocks(total), kThreads, 0, stream>>>(
              p, static_cast<const int64_t*>(indices), o, total, nd, slice_size);
        } else {
          ScatterNdUpdateKernel<U><<<Blocks(total), kThreads, 0, stream>>>(
              p, static_cast<const int32_t*>(indices), o, total, nd, slice_size);
        }
      })) {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t LaunchScatterNdAdd(SegmentSumType type, const void* updates, const void* indices,
                               bool indices_are_int64, void* out, float* float_scratch,
                               int64_t out_size, const NdIndexDims& nd, int64_t num_rows,
                               int64_t slice_size, cudaStream_t stream) {
  if (out_size <= 0 || num_rows * slice_size <= 0) return cudaSuccess;
  switch (type) {
    case SegmentSumType::kFloat32:
      return ScatterNdAdd<float, float>(updates, indices, indices_are_int64,
                                        static_cast<float*>(out), nd, num_rows, slice_size, stream);
    case SegmentSumType::kFloat64:
      return ScatterNdAdd<double, double>(updates, indices, indices_are_int64,
                                          static_cast<double*>(out), nd, num_rows, slice_size,
                                          stream);
    case SegmentSumType::kInt32:
      return ScatterNdAdd<int32_t, int32_t>(updates, indices, indices_are_int64,
                                            static_cast<int32_t*>(out), nd, num_rows, slice_size,
                                            stream);
    case SegmentSumType::kInt64:
      return ScatterNdAdd<int64_t, int64_t>(updates, indices, indices_are_int64,
                                            static_cast<int64_t*>(out), nd, num_rows, slice_size,
                                            stream);
    case SegmentSumType::kFloat16:
      return ScatterNdAddHalf<__half>(updates, indices, indices_are_int64, out, float_scratch,
                                      out_size, nd, num_rows, slice_size, stream);
    case SegmentSumType::kBFloat16:
      return ScatterNdAddHalf<__nv_bfloat16>(updates, indices, indices_are_int64, out,
                                             float_scratch, out_size, nd, num_rows, slice_size,
                                             stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchMirrorPadGrad(SegmentSumType type, const MirrorPadGradDims& dims, const void* dy,
                                void* out, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (type) {
    case SegmentSumType::kFloat32:
      return MirrorPadGrad<float>(dims, dy, out, n, stream);
    case SegmentSumType::kFloat64:
      return MirrorPadGrad<double>(dims, dy, out, n, stream);
    case SegmentSumType::kInt32:
      return MirrorPadGrad<int32_t>(dims, dy, out, n, stream);
    case SegmentSumType::kInt64:
      return MirrorPadGrad<int64_t>(dims, dy, out, n, stream);
    case SegmentSumType::kFloat16:
      return MirrorPadGrad<__half>(dims, dy, out, n, stream);
    case SegmentSumType::kBFloat16:
      return MirrorPadGrad<__nv_bfloat16>(dims, dy, out, n, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace duet::cuda
