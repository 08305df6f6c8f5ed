// Cast between all seven dtypes with TensorFlow's rules, the device twin of
// kernels/cpu/math/cast_value.h: float -> int truncates toward zero, NaN -> int is 0 and
// out-of-range values saturate; x -> bool is x != 0; 16-bit floats go through float32 (so
// float64 -> float16 rounds twice, as on the CPU). Truncate=true zeroes the mantissa bits the
// destination lacks first, as the CPU does (Note [Cast with Truncate] in
// kernels/cpu/math/cast_kernel.cc).
#include "kernels/cuda/math/elementwise_common.cu.h"

namespace duet::cuda {
namespace {

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

// The range of the integer destinations (std::numeric_limits is host-only without
// --expt-relaxed-constexpr).
template <typename I>
struct IntRange;
template <>
struct IntRange<int32_t> {
  static constexpr int kDigits = 31;
  static constexpr int32_t kMin = INT32_MIN, kMax = INT32_MAX;
};
template <>
struct IntRange<int64_t> {
  static constexpr int kDigits = 63;
  static constexpr int64_t kMin = INT64_MIN, kMax = INT64_MAX;
};

// Float to integer as cast_value.h's FloatToInt: in-range values truncate, NaN gives 0, the rest
// saturate; the explicit selects leave nothing to the hardware conversion's NaN handling.
template <typename I, typename F>
__device__ __forceinline__ I FloatToInt(F x) {
  constexpr F kLimit = static_cast<F>(static_cast<uint64_t>(1) << IntRange<I>::kDigits);
  const bool in_range = x > -kLimit && x < kLimit;  // false for NaN
  I value = static_cast<I>(in_range ? x : F(0));
  value = x >= kLimit ? IntRange<I>::kMax : value;
  value = x <= -kLimit ? IntRange<I>::kMin : value;
  return value;
}

template <typename D, typename S>
__device__ __forceinline__ D CastValue(S x) {
  if constexpr (std::is_same_v<S, D>) {
    return x;
  } else if constexpr (kIsHalf<S>) {
    return CastValue<D>(ToCompute(x));
  } else if constexpr (std::is_same_v<D, bool>) {
    return x != S(0);
  } else if constexpr (kIsHalf<D>) {
    return FromCompute<D>(static_cast<float>(x));
  } else if constexpr (std::is_integral_v<D> && std::is_floating_point_v<S>) {
    return FloatToInt<D>(x);
  } else {
    return static_cast<D>(x);
  }
}

template <typename S, typename D>
__global__ void CastKernel(const S* __restrict__ x, D* __restrict__ y, int64_t n) {
  for (int64_t i = GlobalThread<int64_t>(); i < n; i += GridStride<int64_t>()) {
    y[i] = CastValue<D>(x[i]);
  }
}

// The pairs Truncate=true changes (Note [Cast with Truncate] in kernels/cpu/math/cast_kernel.cc):
// float32 -> float16 or bfloat16, float64 -> float32 or float16.
template <typename S, typename D>
inline constexpr bool kTruncates = (std::is_same_v<S, float> && kIsHalf<D>) ||
                                   (std::is_same_v<S, double> &&
                                    (std::is_same_v<D, float> || std::is_same_v<D, __half>));

// Mantissa bits (without the implicit one) of the floating types.
template <typename T>
inline constexpr int kMantissaBits = std::is_same_v<T, double>   ? 52
                                     : std::is_same_v<T, float>  ? 23
                                     : std::is_same_v<T, __half> ? 10
                                                                 : 7;  // bfloat16

// x with the mantissa bits D lacks zeroed (NaN left alone), as the CPU's TruncatingConvert.
template <typename D, typename S>
__device__ __forceinline__ S DropMantissaBits(S x) {
  if (isnan(x)) return x;
  constexpr int kDrop = kMantissaBits<S> - kMantissaBits<D>;
  if constexpr (std::is_same_v<S, float>) {
    return __uint_as_float(__float_as_uint(x) & (~0u << kDrop));
  } else {
    return __longlong_as_double(static_cast<long long>(
        static_cast<unsigned long long>(__double_as_longlong(x)) & (~0ull << kDrop)));
  }
}

template <typename S, typename D>
__global__ void TruncatingCastKernel(const S* __restrict__ x, D* __restrict__ y, int64_t n) {
  for (int64_t i = GlobalThread<int64_t>(); i < n; i += GridStride<int64_t>()) {
    y[i] = CastValue<D>(DropMantissaBits<D>(x[i]));
  }
}

}  // namespace

cudaError_t LaunchCast(ElementType from, ElementType to, bool truncate, const void* x, void* y,
                       int64_t n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  return VisitElementType(from, [&](auto src_zero) {
    using S = decltype(src_zero);
    return VisitElementType(to, [&](auto dst_zero) {
      using D = decltype(dst_zero);
      if constexpr (std::is_same_v<S, D>) {
        return cudaMemcpyAsync(y, x, static_cast<size_t>(n) * sizeof(S), cudaMemcpyDeviceToDevice,
                               stream);
      } else if constexpr (kTruncates<S, D>) {
        if (truncate) {
          TruncatingCastKernel<S, D><<<BlocksFor(n), kThreads, 0, stream>>>(
              static_cast<const S*>(x), static_cast<D*>(y), n);
        } else {
          CastKernel<S, D><<<BlocksFor(n), kThreads, 0, stream>>>(static_cast<const S*>(x),
                                                                  static_cast<D*>(y), n);
        }
        return cudaGetLastError();
      } else {
        CastKernel<S, D><<<BlocksFor(n), kThreads, 0, stream>>>(static_cast<const S*>(x),
                                                                static_cast<D*>(y), n);
        return cudaGetLastError();
      }
    });
  });
}

}  // namespace duet::cuda
