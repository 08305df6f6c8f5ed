// Launchers of the nvcc-built elementwise math kernels: a plain interface (enums, pointers, sizes,
// a stream) that the registering kernels (C++20, gcc) call across the nvcc (C++17) boundary.
// Every launcher queues its work on `stream` and returns the launch status; n == 0 launches
// nothing.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace duet::cuda {

// Element types, by storage (float16 is __half, bfloat16 __nv_bfloat16, bool one byte).
enum class ElementType : int { kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool };

enum class BinaryOp : int {
  kAdd,
  kSub,
  kMul,
  kDiv,  // truncating on integers
  kFloorMod,
  kPow,
  kMaximum,
  kMinimum,
  kFloorDiv,  // floor division; Python's // on integers
  kTruncateDiv,
  kSquaredDifference,
  kAtan2,  // floating point only
  // Bool results.
  kEqual,
  kNotEqual,
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
  kLogicalAnd,  // bool operands
  kLogicalOr,
};

enum class UnaryOp : int {
  kNeg,
  kAbs,
  kSquare,
  kSign,
  kFloor,
  kCeil,
  kSqrt,
  kRsqrt,
  kExp,
  kLog,
  kLog1p,
  kRound,  // also integers (unchanged)
  kRint,
  kSelu,
  kSoftsign,
  kErf,
  kErfc,
  kErfinv,
  kSin,
  kCos,
  kLogicalNot,  // bool
};

// The most dims a broadcast layout holds (after merging dims that broadcast alike).
inline constexpr int kMaxBroadcastRank = 8;

// How the operands of an elementwise kernel are addressed while walking the n output elements.
struct ElementwiseLayout {
  enum Kind : int {
    kContiguous,  // every operand holds n elements, or one (scalar_mask) that repeats
    kStrided,     // per-dim strides: operand k's element of output index (i_0..i_r-1) is
                  // sum_d i_d * strides[k][d]
  };
  Kind kind = kContiguous;
  int64_t n = 0;
  // kContiguous: bit k set when operand k is a single element that broadcasts.
  unsigned scalar_mask = 0;
  // kStrided: output dims (row-major) and each operand's element strides (0 where it repeats).
  int rank = 0;
  int64_t dims[kMaxBroadcastRank] = {};
  int64_t strides[3][kMaxBroadcastRank] = {};
};

// z = op(x, y) over `layout`'s n output elements (operands 0 = x, 1 = y). x and y have `type`;
// z has `type`, or bool for comparisons and logical ops. Half types compute in float.
cudaError_t LaunchBinary(BinaryOp op, ElementType type, const void* x, const void* y, void* z,
                         const ElementwiseLayout& layout, cudaStream_t stream);

// z[i] = op(x[i]) for i < n; z has x's type.
cudaError_t LaunchUnary(UnaryOp op, ElementType type, const void* x, void* z, int64_t n,
                        cudaStream_t stream);

// y[i] = x[i] converted from `from` to `to` with TensorFlow's rules
// (kernels/cpu/math/cast_value.h); `truncate` is Cast's Truncate attr.
cudaError_t LaunchCast(ElementType from, ElementType to, bool truncate, const void* x, void* y,
                       int64_t n, cudaStream_t stream);

// z = cond ? t : e over `layout` (operands 0 = cond (bool), 1 = t, 2 = e), moving elements of
// `element_size` bytes (1, 2, 4 or 8).
cudaError_t LaunchSelect(int element_size, const bool* cond, const void* t, const void* e, void* z,
                         const ElementwiseLayout& layout, cudaStream_t stream);

// What FindFirst looks for.
enum class IntPredicate : int { kZero, kNegative };

// *first = the smallest i < n with pred(x[i]), left unchanged when there is none; x is int32 or
// int64. The caller initializes *first (device memory) to a value >= n.
cudaError_t LaunchFindFirst(IntPredicate pred, ElementType type, const void* x, int64_t n,
                            unsigned long long* first, cudaStream_t stream);

// The float classifications: IsNan, IsInf, IsFinite.
enum class FloatClass : int { kIsNan, kIsInf, kIsFinite };

// z[i] = op(x[i]) for i < n; x is a float type, z bool.
cudaError_t LaunchFloatClass(FloatClass op, ElementType type, const void* x, bool* z, int64_t n,
                             cudaStream_t stream);

// *flags |= 1 when x (a float type, n elements) holds a NaN, |= 2 when it holds an infinity
// (CheckNumerics). The caller zeroes *flags (device memory) first.
cudaError_t LaunchNonFiniteFlags(ElementType type, const void* x, int64_t n, unsigned* flags,
                                 cudaStream_t stream);

// z[i] = the number of the sorted `boundaries` (device memory) that are <= x[i] (Bucketize); x is
// float32, float64, int32 or int64.
cudaError_t LaunchBucketize(ElementType type, const void* x, const float* boundaries,
                            int num_boundaries, int32_t* z, int64_t n, cudaStream_t stream);

}  // namespace duet::cuda
