// The elementwise math of each op as a functor (see elementwise.h for the functor contract), kept
// apart from registration so fused kernels can reuse them. Integer arithmetic wraps around like
// TensorFlow's (two's complement) instead of being undefined behaviour on overflow.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/common/wrapping_arithmetic.h"
#include "kernels/cpu/math/simd.h"

namespace duet {

// ---- Binary arithmetic -------------------------------------------------------------------------

struct AddFn {
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>)
      return WrapAdd(x, y);
    else
      return x + y;
  }
};

struct SubFn {
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>)
      return WrapSub(x, y);
    else
      return x - y;
  }
};

struct MulFn {
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>)
      return WrapMul(x, y);
    else
      return x * y;
  }
};

// x / y; integers truncate toward zero. Callers reject integer y == 0 first; MIN / -1 wraps
// (the hardware would trap).
struct DivFn {
  static constexpr int kCost = 2;
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>)
      return y == -1 ? WrapSub(T{0}, x) : x / y;
    else
      return x / y;
  }
};

// Remainder with the sign of the divisor (Python's %, TensorFlow's FloorMod). Callers reject
// integer y == 0 first.
struct FloorModFn {
  static constexpr int kCost = 8;  // fmod, or an integer division
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      if (y == -1) return 0;  // MIN % -1 would trap
      const T r = x % y;
      return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
    } else {
      const T r = std::fmod(x, y);
      return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
    }
  }
};

// x ** y. Integer exponents must be >= 0 (callers check); integer results wrap.
struct PowFn {
  static constexpr int kCost = 16;  // std::pow, or a square-and-multiply loop
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      T result = 1;
      for (T base = x; y > 0; y >>= 1) {
        if (y & 1) result = WrapMul(result, base);
        base = WrapMul(base, base);
      }
      return result;
    } else {
      return std::pow(x, y);
    }
  }
};

// floor(x / y); integers round toward negative infinity (Python's //). Callers reject integer
// y == 0 first; MIN // -1 wraps.
struct FloorDivFn {
  static constexpr int kCost = 4;
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      if (y == -1) return WrapSub(T{0}, x);
      const T q = x / y;
      return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
    } else {
      return std::floor(x / y);
    }
  }
};

// x / y rounded toward zero. Callers reject integer y == 0 first; MIN / -1 wraps.
struct TruncateDivFn {
  static constexpr int kCost = 4;
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>)
      return y == -1 ? WrapSub(T{0}, x) : x / y;
    else
      return std::trunc(x / y);
  }
};

struct SquaredDifferenceFn {
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      const T d = WrapSub(x, y);
      return WrapMul(d, d);
    } else {
      const T d = x - y;
      return d * d;
    }
  }
};

// The angle of (x, y); the operands come as TensorFlow's Atan2 takes them, y first.
struct Atan2Fn {
  static constexpr int kCost = 20;
  template <typename T>
  T operator()(T y, T x) const {
    return std::atan2(y, x);
  }
};

// Larger of x and y; NaN if either is NaN (like NumPy and TensorFlow).
struct MaximumFn {
  template <typename T>
  T operator()(T x, T y) const {
    return (x > y || x != x) ? x : y;
  }
};

// g where f > 0, else 0 (ReluGrad: g the incoming gradient, f Relu's input or output).
struct ReluGradFn {
  template <typename T>
  T operator()(T g, T f) const {
    return f > T(0) ? g : T(0);
  }
};

// Smaller of x and y; NaN if either is NaN.
struct MinimumFn {
  template <typename T>
  T operator()(T x, T y) const {
    return (x < y || x != x) ? x : y;
  }
};

// ---- Comparisons and logic ---------------------------------------------------------------------

struct EqualFn {
  template <typename T>
  bool operator()(T x, T y) const {
    return x == y;
  }
};
struct NotEqualFn {
  template <typename T>
  bool operator()(T x, T y) const {
    return x != y;
  }
};
struct LessFn {
  template <typename T>
  bool operator()(T x, T y) const {
    return x < y;
  }
};
struct LessEqualFn {
  template <typename T>
  bool operator()(T x, T y) const {
    return x <= y;
  }
};
struct GreaterFn {
  template <typename T>
  bool operator()(T x, T y) const {
    return x > y;
  }
};
struct GreaterEqualFn {
  template <typename T>
  bool operator()(T x, T y) const {
    return x >= y;
  }
};
struct LogicalAndFn {
  bool operator()(bool x, bool y) const { return x & y; }
};
struct LogicalOrFn {
  bool operator()(bool x, bool y) const { return x | y; }
};
struct LogicalNotFn {
  bool operator()(bool x) const { return !x; }
};

// ---- Float classification: bool results
// ----------------------------------------------------------- Written as comparisons, not
// std::isnan/std::isinf (library calls that stop vectorization, and that -ffinite-math-only would
// fold away): NaN is the only value unequal to itself, and |x| of an infinity is the only value
// above the type's largest finite value.

struct IsNanFn {
  template <typename T>
  bool operator()(T x) const {
    return x != x;
  }
};
struct IsInfFn {
  template <typename T>
  bool operator()(T x) const {
    return (x < 0 ? -x : x) > std::numeric_limits<T>::max();
  }
};
struct IsFiniteFn {
  template <typename T>
  bool operator()(T x) const {
    return (x < 0 ? -x : x) <= std::numeric_limits<T>::max();
  }
};

// ---- Unary, simple (the compiler vectorizes these loops) ---------------------------------------

struct NegFn {
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_integral_v<T>)
      return WrapSub(T{0}, x);
    else
      return -x;
  }
};

struct AbsFn {
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_integral_v<T>)
      return x < 0 ? WrapSub(T{0}, x) : x;
    else
      return std::abs(x);
  }
};

struct SquareFn {
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_integral_v<T>)
      return WrapMul(x, x);
    else
      return x * x;
  }
};

// -1, 0 or 1; NaN stays NaN.
struct SignFn {
  template <typename T>
  T operator()(T x) const {
    return x > 0 ? T{1} : (x < 0 ? T{-1} : x);
  }
};

// max(x, 0); NaN stays NaN.
struct ReluFn {
  template <typename T>
  T operator()(T x) const {
    return x < 0 ? T{0} : x;
  }
};

// min(max(x, 0), 6); NaN stays NaN.
struct Relu6Fn {
  template <typename T>
  T operator()(T x) const {
    return x < 0 ? T{0} : (x > 6 ? T{6} : x);
  }
};

// ---- Unary, AVX2 (float and double only) -------------------------------------------------------

struct FloorFn {
  template <typename V>
  static V Vec(V x) {
    return simd::Floor(x);
  }
};

struct CeilFn {
  template <typename V>
  static V Vec(V x) {
    return simd::Ceil(x);
  }
};

// Nearest integer, halves to even (Rint); Round also leaves integers unchanged.
struct RintFn {
  template <typename V>
  static V Vec(V x) {
    return simd::Rint(x);
  }
};
struct RoundFn : RintFn {
  template <typename T>
  T operator()(T x) const {
    static_assert(std::is_integral_v<T>, "floats round through Vec");
    return x;
  }
};

struct SqrtFn {
  static constexpr int kCost = 4;
  template <typename V>
  static V Vec(V x) {
    return simd::Sqrt(x);
  }
};

// 1 / sqrt(x), exactly rounded steps (not the approximate rsqrt instruction).
struct RsqrtFn {
  static constexpr int kCost = 6;
  template <typename V>
  static V Vec(V x) {
    return simd::Set1<V>(1.0) / simd::Sqrt(x);
  }
};

struct ExpFn {
  static constexpr int kCost = 10;
  template <typename V>
  static V Vec(V x) {
    return simd::Exp(x);
  }
};

struct LogFn {
  static constexpr int kCost = 10;
  template <typename V>
  static V Vec(V x) {
    return simd::Log(x);
  }
};

// Note [Log1p of huge x]
// SLEEF's log1p returns +inf above a bound (1e38 in float, 1e307 in double) instead of
// log(x): Log1p(3.4e38f) would be inf where TensorFlow gives 88.72. Beyond 2^64, 1 + x == x
// in both widths and log1p(x) equals log(x) to far below one ulp, so those lanes take log(x).
struct Log1pFn {
  static constexpr int kCost = 12;
  template <typename V>
  static V Vec(V x) {
    const V huge = simd::Set1<V>(18446744073709551616.0);  // 2^64
    return simd::Select(simd::Greater(x, huge), simd::Log(x), simd::Log1p(x));
  }
};

struct TanhFn {
  static constexpr int kCost = 12;
  template <typename V>
  static V Vec(V x) {
    return simd::Tanh(x);
  }
};

// 1 / (1 + exp(-x)), computed from e = exp(-|x|) so neither side overflows or loses precision:
// 1 / (1 + e) for x >= 0 and e / (1 + e) for x < 0.
struct SigmoidFn {
  static constexpr int kCost = 12;
  template <typename V>
  static V Vec(V x) {
    const V one = simd::Set1<V>(1.0);
    const V e = simd::Exp(-simd::Abs(x));
    const V r = one / (one + e);
    return simd::Select(simd::GreaterEqual(x, simd::Set1<V>(0.0)), r, e * r);
  }
};

// x for x > 0, exp(x) - 1 otherwise.
struct EluFn {
  static constexpr int kCost = 12;
  template <typename V>
  static V Vec(V x) {
    return simd::Select(simd::Greater(x, simd::Set1<V>(0.0)), x, simd::Expm1(x));
  }
};

// log(1 + exp(x)) as max(x, 0) + log1p(exp(-|x|)): exact for large |x|, never overflows.
struct SoftplusFn {
  static constexpr int kCost = 20;
  template <typename V>
  static V Vec(V x) {
    return simd::Max(x, simd::Set1<V>(0.0)) + simd::Log1p(simd::Exp(-simd::Abs(x)));
  }
};

// TensorFlow's self-normalizing Selu: scale * (x if x > 0 else alpha * (exp(x) - 1)).
struct SeluFn {
  static constexpr int kCost = 12;
  template <typename V>
  static V Vec(V x) {
    const V scale = simd::Set1<V>(1.0507009873554804934193349852946);
    const V alpha = simd::Set1<V>(1.6732632423543772848170429916717);
    return scale * simd::Select(simd::Greater(x, simd::Set1<V>(0.0)), x, alpha * simd::Expm1(x));
  }
};

// x / (1 + |x|).
struct SoftsignFn {
  static constexpr int kCost = 3;
  template <typename V>
  static V Vec(V x) {
    return x / (simd::Set1<V>(1.0) + simd::Abs(x));
  }
};

struct ErfFn {
  static constexpr int kCost = 12;
  template <typename V>
  static V Vec(V x) {
    return simd::Erf(x);
  }
};

struct ErfcFn {
  static constexpr int kCost = 14;
  template <typename V>
  static V Vec(V x) {
    return simd::Erfc(x);
  }
};

// The inverse error function. SLEEF has none: Giles' single-precision approximation ("Approximating
// the erfinv function", GPU Computing Gems, 2011; about 4e-7 relative within float's range) as the
// start, then Newton steps in double until the step is below the type's precision (one or two for
// float; up to six for double, whose tails lie beyond the approximation's range). Where |y| > 0.5
// the steps solve log(erfc(x)) = log(1 - |y|) instead of erf(x) = y: 1 - |y| is exact there, erfc
// keeps the tails' relative accuracy, and log(erfc) is nearly quadratic, so Newton converges from
// the approximation's far-off tail values too. erfinv(+-1) = +-inf; |y| > 1 and NaN give NaN.
struct ErfinvFn {
  static constexpr int kCost = 60;
  template <typename T>
  T operator()(T value) const {
    const double y = static_cast<double>(value);
    const double t = y < 0 ? -y : y;
    if (!(t < 1)) {
      return t == 1 ? static_cast<T>(std::copysign(std::numeric_limits<double>::infinity(), y))
                    : std::numeric_limits<T>::quiet_NaN();
    }
    double w = -std::log((1.0 - t) * (1.0 + t));
    double p;
    if (w < 5) {
      w -= 2.5;
      p = 2.81022636e-08;
      p = 3.43273939e-07 + p * w;
      p = -3.5233877e-06 + p * w;
      p = -4.39150654e-06 + p * w;
      p = 0.00021858087 + p * w;
      p = -0.00125372503 + p * w;
      p = -0.00417768164 + p * w;
      p = 0.246640727 + p * w;
      p = 1.50140941 + p * w;
    } else {
      w = std::sqrt(w) - 3;
      p = -0.000200214257;
      p = 0.000100950558 + p * w;
      p = 0.00134934322 + p * w;
      p = -0.00367342844 + p * w;
      p = 0.00573950773 + p * w;
      p = -0.0076224613 + p * w;
      p = 0.00943887047 + p * w;
      p = 1.00167406 + p * w;
      p = 2.83297682 + p * w;
    }
    double x = p * t;  // erfinv(|y|); the sign goes on at the end
    constexpr double kTwoOverSqrtPi = 1.1283791670955125738961589031215;
    constexpr bool kDouble = sizeof(T) > 4;
    const double tolerance = kDouble ? 1e-17 : 1e-10;
    for (int i = 0; i < (kDouble ? 6 : 2); ++i) {
      const double slope = kTwoOverSqrtPi * std::exp(-x * x);
      double step;
      if (t > 0.5) {
        const double tail = std::erfc(x);
        step = (std::log(tail) - std::log1p(-t)) * tail / slope;
      } else {
        step = (t - std::erf(x)) / slope;
      }
      x += step;
      if (std::abs(step) <= tolerance * x) break;
    }
    return static_cast<T>(y < 0 ? -x : x);
  }
};

struct SinFn {
  static constexpr int kCost = 12;
  template <typename V>
  static V Vec(V x) {
    return simd::Sin(x);
  }
};

struct CosFn {
  static constexpr int kCost = 12;
  template <typename V>
  static V Vec(V x) {
    return simd::Cos(x);
  }
};

}  // namespace duet
