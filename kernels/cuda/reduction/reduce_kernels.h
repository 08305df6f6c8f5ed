// Launchers of the reduction family's CUDA kernels. A reduction is planned on the host as passes
// over (outer, reduce, inner) views (kernels/common/reduce_plan.h); each pass here is a
// block reduction with warp shuffles along contiguous rows (inner == 1) or a column reduction
// whose warps read along the contiguous inner dim. Plain C-like interface for the nvcc side.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace duet::cuda {

enum class ReduceOp { kSum, kProd, kMax, kMin };
// The element types the reduction ops accept (the ops take no 16-bit floats). kBool is one byte,
// 0 or 1: All is its kMin and Any its kMax (kSum and kProd are not defined on it).
enum class ReduceType { kFloat32, kFloat64, kInt32, kInt64, kBool };

// One pass: dst[o, j] = reduction over r < reduce of src[o, r, j]. reduce == 0 gives the
// identity (0, 1, -inf / lowest, +inf / max). With `mean`, each result is then divided by
// `mean_count` in the element type (integers truncate; a count of 0 gives NaN for floats and 0
// for integers, the CPU's empty means). Sums and products of integers wrap; Max and Min propagate
// NaN. Float results depend on the summation order (a tree here, pairwise blocks on the CPU).
//
// Long reductions with little parallelism otherwise (few output rows or columns) are split into
// pieces whose partial results go to `scratch` first, ReducePassScratchBytes(...) bytes of
// device memory (0: none needed, scratch may be null). Deterministic: the split depends only on
// the sizes.
int64_t ReducePassScratchBytes(ReduceType type, int64_t outer, int64_t reduce, int64_t inner);
cudaError_t LaunchReducePass(ReduceOp op, ReduceType type, const void* src, void* dst,
                             int64_t outer, int64_t reduce, int64_t inner, bool mean,
                             int64_t mean_count, void* scratch, cudaStream_t stream);

// ArgMax (is_max) or ArgMin over x viewed as (outer, n, inner), n > 0: the index of the first
// extreme value, or of the first NaN (as on the CPU). `out` is int32 or int64.
cudaError_t LaunchArgReduce(bool is_max, ReduceType type, const void* src, void* out,
                            bool out_is_int64, int64_t outer, int64_t n, int64_t inner,
                            cudaStream_t stream);

// Cumsum (prod false) or Cumprod over x viewed as (outer, n, inner): dst row k is the running
// sum or product of src rows up to k (exclusive: before k; reverse: from the end), accumulated
// in order as on the CPU, so results match it exactly. One thread per (outer, inner) column,
// walking the n rows: coalesced when inner > 1; a scan of the last axis (inner == 1) gets one
// thread per row. Integer sums and products wrap. kBool is refused.
cudaError_t LaunchScan(bool prod, ReduceType type, const void* src, void* dst, int64_t outer,
                       int64_t n, int64_t inner, bool exclusive, bool reverse, cudaStream_t stream);

}  // namespace duet::cuda
