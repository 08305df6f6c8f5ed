// SelectV2 (condition ? t : e, three-way broadcasting), moving elements by size, and the scan
// that finds the first zero divisor or negative exponent for the integer ops.
#include "kernels/cuda/math/elementwise_common.cu.h"

namespace duet::cuda {
namespace {

// Contiguous operands, each of n elements or one that repeats (bit k of scalar_mask).
template <typename U>
__global__ void SelectContiguousKernel(const bool* __restrict__ c, const U* __restrict__ t,
                                       const U* __restrict__ e, U* __restrict__ z, int64_t n,
                                       unsigned scalar_mask) {
  const int64_t sc = (scalar_mask & 1u) ? 0 : 1;
  const int64_t st = (scalar_mask & 2u) ? 0 : 1;
  const int64_t se = (scalar_mask & 4u) ? 0 : 1;
  for (int64_t i = GlobalThread<int64_t>(); i < n; i += GridStride<int64_t>()) {
    z[i] = c[i * sc] ? t[i * st] : e[i * se];
  }
}

template <typename U, typename Index>
__global__ void SelectStridedKernel(const bool* __restrict__ c, const U* __restrict__ t,
                                    const U* __restrict__ e, U* __restrict__ z,
                                    ElementwiseLayout layout) {
  const Index n = static_cast<Index>(layout.n);
  for (Index i = GlobalThread<Index>(); i < n; i += GridStride<Index>()) {
    Index offsets[3];
    StridedOffsets<3>(layout, i, offsets);
    z[i] = c[offsets[0]] ? t[offsets[1]] : e[offsets[2]];
  }
}

template <typename U>
cudaError_t LaunchSelectTyped(const bool* c, const U* t, const U* e, U* z,
                              const ElementwiseLayout& layout, cudaStream_t stream) {
  const int64_t n = layout.n;
  if (layout.kind == ElementwiseLayout::kStrided) {
    if (FitsInt32(layout)) {
      SelectStridedKernel<U, uint32_t><<<BlocksFor(n), kThreads, 0, stream>>>(c, t, e, z, layout);
    } else {
      SelectStridedKernel<U, int64_t><<<BlocksFor(n), kThreads, 0, stream>>>(c, t, e, z, layout);
    }
  } else {
    SelectContiguousKernel<U>
        <<<BlocksFor(n), kThreads, 0, stream>>>(c, t, e, z, n, layout.scalar_mask);
  }
  return cudaGetLastError();
}

template <typename T>
__global__ void FindFirstKernel(IntPredicate pred, const T* __restrict__ x, int64_t n,
                                unsigned long long* first) {
  for (int64_t i = GlobalThread<int64_t>(); i < n; i += GridStride<int64_t>()) {
    const bool hit = pred == IntPredicate::kZero ? x[i] == 0 : x[i] < 0;
    if (hit) atomicMin(first, static_cast<unsigned long long>(i));
  }
}

}  // namespace

cudaError_t LaunchSelect(int element_size, const bool* cond, const void* t, const void* e, void* z,
                         const ElementwiseLayout& layout, cudaStream_t stream) {
  if (layout.n <= 0) return cudaSuccess;
  switch (element_size) {
    case 1:
      return LaunchSelectTyped(cond, static_cast<const uint8_t*>(t), static_cast<const uint8_t*>(e),
                               static_cast<uint8_t*>(z), layout, stream);
    case 2:
      return LaunchSelectTyped(cond, static_cast<const uint16_t*>(t),
                               static_cast<const uint16_t*>(e), static_cast<uint16_t*>(z), layout,
                               stream);
    case 4:
      return LaunchSelectTyped(cond, static_cast<const uint32_t*>(t),
                               static_cast<const uint32_t*>(e), static_cast<uint32_t*>(z), layout,
                               stream);
    case 8:
      return LaunchSelectTyped(cond, static_cast<const uint64_t*>(t),
                               static_cast<const uint64_t*>(e), static_cast<uint64_t*>(z), layout,
                               stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchFindFirst(IntPredicate pred, ElementType type, const void* x, int64_t n,
                            unsigned long long* first, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (type == ElementType::kInt32) {
    FindFirstKernel<<<BlocksFor(n), kThreads, 0, stream>>>(pred, static_cast<const int32_t*>(x), n,
                                                           first);
  } else if (type == ElementType::kInt64) {
    FindFirstKernel<<<BlocksFor(n), kThreads, 0, stream>>>(pred, static_cast<const int64_t*>(x), n,
                                                           first);
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace duet::cuda
