// The binary elementwise kernels as templates over the op functor and storage type (included by
// binary_arithmetic_kernels.cu and binary_comparison_kernels.cu, which instantiate them for their
// ops, split in two so nvcc compiles them in parallel).
//
// Three paths: contiguous operands (each of n elements or a single repeating element) in 16-byte
// packs when every full operand and the output are aligned for them, the same one element at a
// time otherwise, and per-dimension strides for general broadcasting (32-bit index arithmetic
// when the output has fewer than 2^31 elements).
#pragma once

#include "kernels/cuda/math/elementwise_common.cu.h"

namespace duet::cuda {

// Which element types an op accepts (others are not instantiated).
enum class TypeSet { kArithmetic, kFloat, kAll, kBoolOnly };

template <TypeSet kSet, typename S>
constexpr bool InTypeSet() {
  if constexpr (kSet == TypeSet::kAll) {
    return true;
  } else if constexpr (kSet == TypeSet::kBoolOnly) {
    return std::is_same_v<S, bool>;
  } else if constexpr (kSet == TypeSet::kFloat) {
    return std::is_same_v<S, float> || std::is_same_v<S, double> || std::is_same_v<S, __half> ||
           std::is_same_v<S, __nv_bfloat16>;
  } else {
    return !std::is_same_v<S, bool>;
  }
}

template <typename Op, typename S, typename R>
__device__ __forceinline__ R ApplyBinary(S x, S y) {
  return FromCompute<R>(Op()(ToCompute(x), ToCompute(y)));
}

// z = op(x, y) over contiguous operands, N elements per pack (N == 1: element by element); a
// scalar operand repeats its element 0.
template <typename Op, typename S, typename R, int N>
__global__ void BinaryContiguousKernel(const S* __restrict__ x, const S* __restrict__ y,
                                       R* __restrict__ z, int64_t n, bool x_scalar, bool y_scalar) {
  const S x0 = x_scalar ? x[0] : S{};
  const S y0 = y_scalar ? y[0] : S{};
  const int64_t packs = n / N;
  for (int64_t p = GlobalThread<int64_t>(); p < packs; p += GridStride<int64_t>()) {
    Pack<S, N> a, b;
    if (x_scalar) {
#pragma unroll
      for (int j = 0; j < N; ++j) a.v[j] = x0;
    } else {
      a = reinterpret_cast<const Pack<S, N>*>(x)[p];
    }
    if (y_scalar) {
#pragma unroll
      for (int j = 0; j < N; ++j) b.v[j] = y0;
    } else {
      b = reinterpret_cast<const Pack<S, N>*>(y)[p];
    }
    Pack<R, N> c;
#pragma unroll
    for (int j = 0; j < N; ++j) c.v[j] = ApplyBinary<Op, S, R>(a.v[j], b.v[j]);
    reinterpret_cast<Pack<R, N>*>(z)[p] = c;
  }
  // The last n % N elements.
  for (int64_t i = packs * N + GlobalThread<int64_t>(); i < n; i += GridStride<int64_t>()) {
    z[i] = ApplyBinary<Op, S, R>(x_scalar ? x0 : x[i], y_scalar ? y0 : y[i]);
  }
}

template <typename Op, typename S, typename R, typename Index>
__global__ void BinaryStridedKernel(const S* __restrict__ x, const S* __restrict__ y,
                                    R* __restrict__ z, ElementwiseLayout layout) {
  const Index n = static_cast<Index>(layout.n);
  for (Index i = GlobalThread<Index>(); i < n; i += GridStride<Index>()) {
    Index offsets[2];
    StridedOffsets<2>(layout, i, offsets);
    z[i] = ApplyBinary<Op, S, R>(x[offsets[0]], y[offsets[1]]);
  }
}

template <typename Op, typename S, typename R>
cudaError_t LaunchBinaryTyped(const S* x, const S* y, R* z, const ElementwiseLayout& layout,
                              cudaStream_t stream) {
  const int64_t n = layout.n;
  if (n <= 0) return cudaSuccess;
  if (layout.kind == ElementwiseLayout::kStrided) {
    if (FitsInt32(layout)) {
      BinaryStridedKernel<Op, S, R, uint32_t>
          <<<BlocksFor(n), kThreads, 0, stream>>>(x, y, z, layout);
    } else {
      BinaryStridedKernel<Op, S, R, int64_t>
          <<<BlocksFor(n), kThreads, 0, stream>>>(x, y, z, layout);
    }
    return cudaGetLastError();
  }
  const bool x_scalar = layout.scalar_mask & 1u;
  const bool y_scalar = layout.scalar_mask & 2u;
  constexpr int N = kPackSize<S>;
  const bool packed = (x_scalar || IsAligned(x, sizeof(S) * N)) &&
                      (y_scalar || IsAligned(y, sizeof(S) * N)) && IsAligned(z, sizeof(R) * N);
  if (packed && n >= N) {
    BinaryContiguousKernel<Op, S, R, N>
        <<<BlocksFor(n / N), kThreads, 0, stream>>>(x, y, z, n, x_scalar, y_scalar);
  } else {
    BinaryContiguousKernel<Op, S, R, 1>
        <<<BlocksFor(n), kThreads, 0, stream>>>(x, y, z, n, x_scalar, y_scalar);
  }
  return cudaGetLastError();
}

// Launches Op for `type` if the op accepts it (kSet); the result is bool when kBoolResult, else
// the operands' type.
template <typename Op, TypeSet kSet, bool kBoolResult>
cudaError_t LaunchBinaryOp(ElementType type, const void* x, const void* y, void* z,
                           const ElementwiseLayout& layout, cudaStream_t stream) {
  return VisitElementType(type, [&](auto zero) -> cudaError_t {
    using S = decltype(zero);
    if constexpr (InTypeSet<kSet, S>()) {
      using R = std::conditional_t<kBoolResult, bool, S>;
      return LaunchBinaryTyped<Op, S, R>(static_cast<const S*>(x), static_cast<const S*>(y),
                                         static_cast<R*>(z), layout, stream);
    } else {
      return cudaErrorInvalidValue;
    }
  });
}

// The comparison and logical ops (binary_comparison_kernels.cu).
cudaError_t LaunchComparison(BinaryOp op, ElementType type, const void* x, const void* y, void* z,
                             const ElementwiseLayout& layout, cudaStream_t stream);

}  // namespace duet::cuda
