// The elementwise math of the CUDA math kernels as device functors, one source for the nvcc-built
// kernels (.cu) and the NVRTC-built fused kernels (nvrtc_compiler.h embeds this file), so a fused
// program computes what the unfused ops compute. Each functor mirrors its CPU counterpart in
// kernels/cpu/math/functors.h: the same IEEE operations, comparisons and selections (NaN and -0
// included); transcendentals use CUDA's correctly-rounded-within-a-few-ulps functions where the
// CPU uses SLEEF's, so those two agree to a few ulps, not bit for bit.
//
// This file must compile under NVRTC, which has no standard headers: it includes nothing and
// uses only built-in types and CUDA's built-in math functions. Half types never reach these
// functors: the kernels compute them in float.
#pragma once

namespace duet_gpu {

// ---- Type traits (no <type_traits> under NVRTC) ------------------------------------------------

template <typename T>
struct IntTraits {
  static constexpr bool kIsInt = false;
  using Unsigned = T;
};
template <>
struct IntTraits<int> {
  static constexpr bool kIsInt = true;
  using Unsigned = unsigned int;
};
template <>
struct IntTraits<long> {  // int64_t with nvcc on LP64 Linux
  static constexpr bool kIsInt = true;
  using Unsigned = unsigned long;
};
template <>
struct IntTraits<long long> {
  static constexpr bool kIsInt = true;
  using Unsigned = unsigned long long;
};

// Two's-complement wrapping arithmetic, done in the unsigned type (as TensorFlow's).
template <typename T>
__device__ __forceinline__ T WrapAdd(T a, T b) {
  using U = typename IntTraits<T>::Unsigned;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <typename T>
__device__ __forceinline__ T WrapSub(T a, T b) {
  using U = typename IntTraits<T>::Unsigned;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <typename T>
__device__ __forceinline__ T WrapMul(T a, T b) {
  using U = typename IntTraits<T>::Unsigned;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}

// ---- Precise math by type (explicit overloads: no std:: overloads under NVRTC) -----------------

__device__ __forceinline__ float MathFloor(float x) { return floorf(x); }
__device__ __forceinline__ double MathFloor(double x) { return floor(x); }
__device__ __forceinline__ float MathCeil(float x) { return ceilf(x); }
__device__ __forceinline__ double MathCeil(double x) { return ceil(x); }
__device__ __forceinline__ float MathSqrt(float x) { return sqrtf(x); }
__device__ __forceinline__ double MathSqrt(double x) { return sqrt(x); }
__device__ __forceinline__ float MathExp(float x) { return expf(x); }
__device__ __forceinline__ double MathExp(double x) { return exp(x); }
__device__ __forceinline__ float MathExpm1(float x) { return expm1f(x); }
__device__ __forceinline__ double MathExpm1(double x) { return expm1(x); }
__device__ __forceinline__ float MathLog(float x) { return logf(x); }
__device__ __forceinline__ double MathLog(double x) { return log(x); }
__device__ __forceinline__ float MathLog1p(float x) { return log1pf(x); }
__device__ __forceinline__ double MathLog1p(double x) { return log1p(x); }
__device__ __forceinline__ float MathTanh(float x) { return tanhf(x); }
__device__ __forceinline__ double MathTanh(double x) { return tanh(x); }
__device__ __forceinline__ float MathPow(float x, float y) { return powf(x, y); }
__device__ __forceinline__ double MathPow(double x, double y) { return pow(x, y); }
__device__ __forceinline__ float MathFmod(float x, float y) { return fmodf(x, y); }
__device__ __forceinline__ double MathFmod(double x, double y) { return fmod(x, y); }
__device__ __forceinline__ float MathFabs(float x) { return fabsf(x); }
__device__ __forceinline__ double MathFabs(double x) { return fabs(x); }
__device__ __forceinline__ float MathTrunc(float x) { return truncf(x); }
__device__ __forceinline__ double MathTrunc(double x) { return trunc(x); }
__device__ __forceinline__ float MathRint(float x) { return rintf(x); }
__device__ __forceinline__ double MathRint(double x) { return rint(x); }
__device__ __forceinline__ float MathErf(float x) { return erff(x); }
__device__ __forceinline__ double MathErf(double x) { return erf(x); }
__device__ __forceinline__ float MathErfc(float x) { return erfcf(x); }
__device__ __forceinline__ double MathErfc(double x) { return erfc(x); }
__device__ __forceinline__ float MathErfinv(float x) { return erfinvf(x); }
__device__ __forceinline__ double MathErfinv(double x) { return erfinv(x); }
__device__ __forceinline__ float MathSin(float x) { return sinf(x); }
__device__ __forceinline__ double MathSin(double x) { return sin(x); }
__device__ __forceinline__ float MathCos(float x) { return cosf(x); }
__device__ __forceinline__ double MathCos(double x) { return cos(x); }
__device__ __forceinline__ float MathAtan2(float y, float x) { return atan2f(y, x); }
__device__ __forceinline__ double MathAtan2(double y, double x) { return atan2(y, x); }

// ---- Binary arithmetic -------------------------------------------------------------------------

struct AddFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x, T y) const {
    if constexpr (IntTraits<T>::kIsInt) {
      return WrapAdd(x, y);
    } else {
      return x + y;
    }
  }
};

struct SubFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x, T y) const {
    if constexpr (IntTraits<T>::kIsInt) {
      return WrapSub(x, y);
    } else {
      return x - y;
    }
  }
};

struct MulFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x, T y) const {
    if constexpr (IntTraits<T>::kIsInt) {
      return WrapMul(x, y);
    } else {
      return x * y;
    }
  }
};

// Integers truncate toward zero; the kernel rejects a zero divisor first; MIN / -1 wraps.
struct DivFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x, T y) const {
    if constexpr (IntTraits<T>::kIsInt) {
      return y == T(-1) ? WrapSub(T(0), x) : x / y;
    } else {
      return x / y;
    }
  }
};

// Remainder with the sign of the divisor (Python's %).
struct FloorModFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x, T y) const {
    if constexpr (IntTraits<T>::kIsInt) {
      if (y == T(-1)) return T(0);  // MIN % -1 would trap
      const T r = x % y;
      return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
    } else {
      const T r = MathFmod(x, y);
      return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
    }
  }
};

// Integer exponents are >= 0 (the kernel checks); integer results wrap.
struct PowFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x, T y) const {
    if constexpr (IntTraits<T>::kIsInt) {
      T result = 1;
      for (T base = x; y > 0; y >>= 1) {
        if (y & 1) result = WrapMul(result, base);
        base = WrapMul(base, base);
      }
      return result;
    } else {
      return MathPow(x, y);
    }
  }
};

// floor(x / y); integers round toward negative infinity (Python's //). The kernel rejects an
// integer zero divisor first; MIN // -1 wraps.
struct FloorDivFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x, T y) const {
    if constexpr (IntTraits<T>::kIsInt) {
      if (y == T(-1)) return WrapSub(T(0), x);
      const T q = x / y;
      return (x % y != 0 && ((x < 0) != (y < 0))) ? q - T(1) : q;
    } else {
      return MathFloor(x / y);
    }
  }
};

// x / y rounded toward zero (the kernel rejects an integer zero divisor first).
struct TruncateDivFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x, T y) const {
    if constexpr (IntTraits<T>::kIsInt) {
      return y == T(-1) ? WrapSub(T(0), x) : x / y;
    } else {
      return MathTrunc(x / y);
    }
  }
};

struct SquaredDifferenceFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x, T y) const {
    if constexpr (IntTraits<T>::kIsInt) {
      const T d = WrapSub(x, y);
      return WrapMul(d, d);
    } else {
      const T d = x - y;
      return d * d;
    }
  }
};

// Floating point only: operands (y, x) as TensorFlow's Atan2.
struct Atan2Fn {
  template <typename T>
  __device__ __forceinline__ T operator()(T y, T x) const {
    return MathAtan2(y, x);
  }
};

// NaN if either is NaN.
struct MaximumFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x, T y) const {
    return (x > y || x != x) ? x : y;
  }
};
struct MinimumFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x, T y) const {
    return (x < y || x != x) ? x : y;
  }
};

// g where f > 0, else 0.
struct ReluGradFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T g, T f) const {
    return f > T(0) ? g : T(0);
  }
};

// ---- Comparisons and logic (bool results) ------------------------------------------------------

struct EqualFn {
  template <typename T>
  __device__ __forceinline__ bool operator()(T x, T y) const {
    return x == y;
  }
};
struct NotEqualFn {
  template <typename T>
  __device__ __forceinline__ bool operator()(T x, T y) const {
    return x != y;
  }
};
struct LessFn {
  template <typename T>
  __device__ __forceinline__ bool operator()(T x, T y) const {
    return x < y;
  }
};
struct LessEqualFn {
  template <typename T>
  __device__ __forceinline__ bool operator()(T x, T y) const {
    return x <= y;
  }
};
struct GreaterFn {
  template <typename T>
  __device__ __forceinline__ bool operator()(T x, T y) const {
    return x > y;
  }
};
struct GreaterEqualFn {
  template <typename T>
  __device__ __forceinline__ bool operator()(T x, T y) const {
    return x >= y;
  }
};
struct LogicalAndFn {
  __device__ __forceinline__ bool operator()(bool x, bool y) const { return x && y; }
};
struct LogicalOrFn {
  __device__ __forceinline__ bool operator()(bool x, bool y) const { return x || y; }
};
struct LogicalNotFn {
  __device__ __forceinline__ bool operator()(bool x) const { return !x; }
};

// ---- Unary -------------------------------------------------------------------------------------

struct NegFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    if constexpr (IntTraits<T>::kIsInt) {
      return WrapSub(T(0), x);
    } else {
      return -x;
    }
  }
};

struct AbsFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    if constexpr (IntTraits<T>::kIsInt) {
      return x < 0 ? WrapSub(T(0), x) : x;
    } else {
      return MathFabs(x);
    }
  }
};

struct SquareFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    if constexpr (IntTraits<T>::kIsInt) {
      return WrapMul(x, x);
    } else {
      return x * x;
    }
  }
};

// -1, 0 or 1; NaN and -0 stay.
struct SignFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    return x > T(0) ? T(1) : (x < T(0) ? T(-1) : x);
  }
};

struct ReluFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    return x < T(0) ? T(0) : x;
  }
};

struct Relu6Fn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    return x < T(0) ? T(0) : (x > T(6) ? T(6) : x);
  }
};

struct FloorFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    return MathFloor(x);
  }
};
struct CeilFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    return MathCeil(x);
  }
};
struct SqrtFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    return MathSqrt(x);
  }
};
// 1 / sqrt(x) with two correctly rounded steps, like the CPU (not the approximate rsqrt).
struct RsqrtFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    return T(1) / MathSqrt(x);
  }
};
struct ExpFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    return MathExp(x);
  }
};
struct LogFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    return MathLog(x);
  }
};
struct Log1pFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    return MathLog1p(x);
  }
};
struct TanhFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    return MathTanh(x);
  }
};
// From e = exp(-|x|), as on the CPU: 1 / (1 + e) for x >= 0, e / (1 + e) otherwise.
struct SigmoidFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    const T e = MathExp(-MathFabs(x));
    const T r = T(1) / (T(1) + e);
    return x >= T(0) ? r : e * r;
  }
};
struct EluFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    return x > T(0) ? x : MathExpm1(x);
  }
};
// max(x, 0) + log1p(exp(-|x|)), as on the CPU (simd::Max: x > 0 ? x : 0, NaN gives 0 + NaN).
struct SoftplusFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    const T m = x > T(0) ? x : T(0);
    return m + MathLog1p(MathExp(-MathFabs(x)));
  }
};

// Nearest integer, halves to even; integers unchanged.
struct RoundFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    if constexpr (IntTraits<T>::kIsInt) {
      return x;
    } else {
      return MathRint(x);
    }
  }
};
struct RintFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    return MathRint(x);
  }
};
// TensorFlow's self-normalizing constants (kernels/cpu/math/functors.h).
struct SeluFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    const T scale = T(1.0507009873554804934193349852946);
    const T alpha = T(1.6732632423543772848170429916717);
    return scale * (x > T(0) ? x : alpha * MathExpm1(x));
  }
};
struct SoftsignFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    return x / (T(1) + MathFabs(x));
  }
};
struct ErfFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    return MathErf(x);
  }
};
struct ErfcFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    return MathErfc(x);
  }
};
struct ErfinvFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    return MathErfinv(x);
  }
};
struct SinFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    return MathSin(x);
  }
};
struct CosFn {
  template <typename T>
  __device__ __forceinline__ T operator()(T x) const {
    return MathCos(x);
  }
};

// ---- Float classification (bool results) -------------------------------------------------------
// x - x is 0 for finite x and NaN for infinities and NaN; NaN is the only value unequal to itself.

struct IsNanFn {
  template <typename T>
  __device__ __forceinline__ bool operator()(T x) const {
    return x != x;
  }
};
struct IsInfFn {
  template <typename T>
  __device__ __forceinline__ bool operator()(T x) const {
    return x == x && (x - x) != (x - x);
  }
};
struct IsFiniteFn {
  template <typename T>
  __device__ __forceinline__ bool operator()(T x) const {
    return (x - x) == (x - x);
  }
};

}  // namespace duet_gpu
