// Launchers of the array family's CUDA kernels. Data movement is typed only by element size (1,
// 2, 4 or 8 bytes): a copy moves bits, whatever the dtype. Every launcher queues its work on
// `stream` and returns the launch status; zero elements launch nothing. Plain C-like interface:
// nvcc compiles the .cu side as C++17 without Abseil or duet headers.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace duet::cuda {

// The most dims a strided copy takes after coalescing (Tile doubles the input's rank).
inline constexpr int kMaxCopyRank = 16;

// A copy of the elements of shape dims[0, rank) from src (element strides src_strides, 0
// repeats an element) to dst (dst_strides). rank 0 is a single element.
struct StridedCopyDims {
  int rank = 0;
  int64_t dims[kMaxCopyRank] = {};
  int64_t src_strides[kMaxCopyRank] = {};
  int64_t dst_strides[kMaxCopyRank] = {};
};

// A scalar operand (Fill's value, OneHot's on/off values) wherever it lives: read by the
// kernel from `device` when that is set, else the low bytes of `bits` (read on the host).
struct ScalarBits {
  const void* device = nullptr;
  uint64_t bits = 0;
};

// Sets out[0, n) to `value`.
cudaError_t LaunchFillScalar(void* out, int64_t n, int elem_size, ScalarBits value,
                             cudaStream_t stream);

// out[i] = start + i * delta for i < n: floats computed in double, then rounded; integers in
// wrapping 64-bit arithmetic (exact for Range, whose results lie in [start, limit)).
cudaError_t LaunchRange(float* out, int64_t n, double start, double delta, cudaStream_t stream);
cudaError_t LaunchRange(double* out, int64_t n, double start, double delta, cudaStream_t stream);
cudaError_t LaunchRange(int32_t* out, int64_t n, int64_t start, int64_t delta, cudaStream_t stream);
cudaError_t LaunchRange(int64_t* out, int64_t n, int64_t start, int64_t delta, cudaStream_t stream);

cudaError_t LaunchStridedCopy(const StridedCopyDims& dims, const void* src, void* dst,
                              int elem_size, cudaStream_t stream);

// src viewed as (batch, rows, cols) to dst as (batch, cols, rows), through shared-memory tiles so
// that reads and writes are both coalesced.
cudaError_t LaunchBatchTranspose(const void* src, void* dst, int64_t batch, int64_t rows,
                                 int64_t cols, int elem_size, cudaStream_t stream);

// GatherV2 over params viewed as (batch, outer, n, inner) and indices as (batch, num_indices)
// (kernels/common/gather_geometry.h): out[b, o, m, :] = params[b, o, indices[b, m], :].
// An index outside [0, n) gives a row of zero bits (TensorFlow's GPU kernel does the same; the
// CPU kernel reports an error instead, which would need a host synchronization here).
cudaError_t LaunchGather(const void* params, const void* indices, bool indices_are_int64, void* out,
                         int64_t batch, int64_t outer, int64_t n, int64_t inner,
                         int64_t num_indices, int elem_size, cudaStream_t stream);

// OneHot: out viewed as (outer, depth, inner) from indices viewed as (outer, inner); on_value
// where indices[o, j] == d, else off_value.
cudaError_t LaunchOneHot(const void* indices, bool indices_are_int64, void* out, int64_t outer,
                         int64_t depth, int64_t inner, ScalarBits on_value, ScalarBits off_value,
                         int elem_size, cudaStream_t stream);

// The element types of UnsortedSegmentSum.
enum class SegmentSumType { kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64 };

// UnsortedSegmentSum over data viewed as (rows, inner): out[ids[r], :] += data[r, :] by atomic
// adds (float sums depend on their order). Ids outside [0, num_segments) are dropped (negative
// ids by TensorFlow's rule, ids past the end as TensorFlow's GPU kernel does). float16 and
// bfloat16 add into `float_scratch` (num_segments * inner floats) and round once at the end, as
// the CPU does; the other types need no scratch (may be null). Integers wrap.
cudaError_t LaunchUnsortedSegmentSum(SegmentSumType type, const void* data, const void* ids,
                                     bool ids_are_int64, void* out, float* float_scratch,
                                     int64_t rows, int64_t inner, int64_t num_segments,
                                     cudaStream_t stream);

// DenseBincount of `values` viewed as (rows, per_row) into out (rows, size) of `type` (float32,
// float64, int32 or int64), which it zeroes first: value v of row r adds its weight (1 when
// `weights` is null) to out[r, v] by an atomic add, or with `binary` sets it to 1. Values outside
// [0, size) are dropped (the CPU reports negative ones; checking would need a host sync).
cudaError_t LaunchDenseBincount(SegmentSumType type, const void* values, bool values_are_int64,
                                const void* weights, bool binary, void* out, int64_t rows,
                                int64_t per_row, int64_t size, cudaStream_t stream);

// Rows of indices (batch + [depth]) into a shape's first `depth` dims (Note [Nd indices] in
// ops/array/scatter_nd_ops.cc): row i names slice sum_j indices[i, j] * strides[j] of
// slice_size elements. A row with a coordinate outside [0, dims[j]) names no slice.
struct NdIndexDims {
  int depth = 0;
  int64_t dims[kMaxCopyRank] = {};
  int64_t strides[kMaxCopyRank] = {};
};

// GatherNd: out[i, :] = params[slice of row i, :] for the num_rows rows; zero bits for a row
// that names no slice (TensorFlow's GPU kernel does the same; the CPU kernel reports it).
cudaError_t LaunchGatherNd(const void* params, const void* indices, bool indices_are_int64,
                           void* out, const NdIndexDims& nd, int64_t num_rows, int64_t slice_size,
                           int elem_size, cudaStream_t stream);

// TensorScatterUpdate's update: out[slice of row i, :] = updates[i, :] (out holds the tensor
// already). Rows that name no slice are dropped; of duplicate rows, any one wins.
cudaError_t LaunchScatterNdUpdate(const void* updates, const void* indices, bool indices_are_int64,
                                  void* out, const NdIndexDims& nd, int64_t num_rows,
                                  int64_t slice_size, int elem_size, cudaStream_t stream);

// ScatterNd's and TensorScatterAdd's add: out[slice of row i, :] += updates[i, :] by atomic adds
// into out (out_size elements, holding the starting values already). float16 and bfloat16 widen
// out into `float_scratch` (out_size floats), add there and round once at the end. Rows that
// name no slice are dropped. Integers wrap.
cudaError_t LaunchScatterNdAdd(SegmentSumType type, const void* updates, const void* indices,
                               bool indices_are_int64, void* out, float* float_scratch,
                               int64_t out_size, const NdIndexDims& nd, int64_t num_rows,
                               int64_t slice_size, cudaStream_t stream);

// MirrorPadGrad: out (contiguous, `rank` dims `out_dims`) gathers dy (contiguous, each dim d
// padded by before[d] and after[d]) at MirrorSources (kernels/common/mirror_sources.h): one
// thread per output element, no atomics, so the sums are deterministic. float16 and bfloat16
// add in float.
struct MirrorPadGradDims {
  int rank = 0;
  int64_t out_dims[kMaxCopyRank] = {};
  int64_t before[kMaxCopyRank] = {};
  int64_t after[kMaxCopyRank] = {};
  bool symmetric = false;
};
cudaError_t LaunchMirrorPadGrad(SegmentSumType type, const MirrorPadGradDims& dims, const void* dy,
                                void* out, int64_t n, cudaStream_t stream);

}  // namespace duet::cuda
