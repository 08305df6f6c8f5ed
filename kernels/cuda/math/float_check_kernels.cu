// IsNan, IsInf, IsFinite (bool per element) and CheckNumerics' scan (NaN / infinity flags), on
// every float type; half types are classified in float (every NaN and infinity stays one).
#include "kernels/cuda/math/elementwise_common.cu.h"

namespace duet::cuda {
namespace {

template <typename Op, typename S>
__global__ void FloatClassKernel(const S* __restrict__ x, bool* __restrict__ z, int64_t n) {
  for (int64_t i = GlobalThread<int64_t>(); i < n; i += GridStride<int64_t>()) {
    z[i] = Op()(ToCompute(x[i]));
  }
}

template <typename S>
__global__ void NonFiniteKernel(const S* __restrict__ x, int64_t n, unsigned* flags) {
  unsigned bits = 0;
  for (int64_t i = GlobalThread<int64_t>(); i < n; i += GridStride<int64_t>()) {
    const auto v = ToCompute(x[i]);
    if (duet_gpu::IsNanFn()(v)) bits |= 1u;
    if (duet_gpu::IsInfFn()(v)) bits |= 2u;
  }
  if (bits != 0) atomicOr(flags, bits);
}

template <typename S>
constexpr bool IsFloat() {
  return std::is_same_v<S, float> || std::is_same_v<S, double> || std::is_same_v<S, __half> ||
         std::is_same_v<S, __nv_bfloat16>;
}

template <typename Op>
cudaError_t LaunchClass(ElementType type, const void* x, bool* z, int64_t n, cudaStream_t stream) {
  return VisitElementType(type, [&](auto zero) -> cudaError_t {
    using S = decltype(zero);
    if constexpr (IsFloat<S>()) {
      FloatClassKernel<Op, S>
          <<<BlocksFor(n), kThreads, 0, stream>>>(static_cast<const S*>(x), z, n);
      return cudaGetLastError();
    } else {
      return cudaErrorInvalidValue;
    }
  });
}

}  // namespace

cudaError_t LaunchFloatClass(FloatClass op, ElementType type, const void* x, bool* z, int64_t n,
                             cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  switch (op) {
    case FloatClass::kIsNan:
      return LaunchClass<duet_gpu::IsNanFn>(type, x, z, n, stream);
    case FloatClass::kIsInf:
      return LaunchClass<duet_gpu::IsInfFn>(type, x, z, n, stream);
    case FloatClass::kIsFinite:
      return LaunchClass<duet_gpu::IsFiniteFn>(type, x, z, n, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchNonFiniteFlags(ElementType type, const void* x, int64_t n, unsigned* flags,
                                 cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  return VisitElementType(type, [&](auto zero) -> cudaError_t {
    using S = decltype(zero);
    if constexpr (IsFloat<S>()) {
      NonFiniteKernel<S><<<BlocksFor(n), kThreads, 0, stream>>>(static_cast<const S*>(x), n, flags);
      return cudaGetLastError();
    } else {
      return cudaErrorInvalidValue;
    }
  });
}

}  // namespace duet::cuda
