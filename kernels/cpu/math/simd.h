// AVX2 vectors of float and double with the handful of operations elementwise kernels need,
// written once for both widths by overloading, and the SLEEF transcendental functions under the
// same overloaded names. Code is built with -march=x86-64-v3, so AVX2 and FMA are always there.
#pragma once

#include <immintrin.h>
#include <sleef.h>

#include <Eigen/Core>
#include <cstdint>
#include <cstring>

namespace duet::simd {

// Vec<T>::type is the AVX2 vector of T (__m256 for float, __m256d for double); other element
// types have none, which lets kernels detect "no vector version" at compile time.
template <typename T>
struct Vec {};
template <>
struct Vec<float> {
  using type = __m256;
  static constexpr int kLanes = 8;
};
template <>
struct Vec<double> {
  using type = __m256d;
  static constexpr int kLanes = 4;
};

// The vector type for element type T.
template <typename T>
using VecT = typename Vec<T>::type;

// Unaligned load of one vector from p.
inline __m256 Load(const float* p) { return _mm256_loadu_ps(p); }
inline __m256d Load(const double* p) { return _mm256_loadu_pd(p); }
// Unaligned store of one vector to p.
inline void Store(float* p, __m256 v) { _mm256_storeu_ps(p, v); }
inline void Store(double* p, __m256d v) { _mm256_storeu_pd(p, v); }

// A vector with every lane equal to `value`; the template argument names the vector type.
template <typename V>
V Set1(double value);
template <>
inline __m256 Set1<__m256>(double value) {
  return _mm256_set1_ps(static_cast<float>(value));
}
template <>
inline __m256d Set1<__m256d>(double value) {
  return _mm256_set1_pd(value);
}

// The first n (0 < n < kLanes) elements at p in a vector whose other lanes are zero, and the
// first n lanes of v stored to p; neither touches memory past p + n (masked loads and stores).
inline __m256i TailMask32(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
inline __m256i TailMask64(int64_t n) {
  return _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3));
}
inline __m256 LoadPartial(const float* p, int64_t n) {
  return _mm256_maskload_ps(p, TailMask32(n));
}
inline __m256d LoadPartial(const double* p, int64_t n) {
  return _mm256_maskload_pd(p, TailMask64(n));
}
inline void StorePartial(float* p, __m256 v, int64_t n) {
  _mm256_maskstore_ps(p, TailMask32(n), v);
}
inline void StorePartial(double* p, __m256d v, int64_t n) {
  _mm256_maskstore_pd(p, TailMask64(n), v);
}

// |x|: clears the sign bit.
inline __m256 Abs(__m256 x) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x); }
inline __m256d Abs(__m256d x) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), x); }
// max(x, y) and min(x, y) as the hardware defines them (y when either is NaN).
inline __m256 Max(__m256 x, __m256 y) { return _mm256_max_ps(x, y); }
inline __m256d Max(__m256d x, __m256d y) { return _mm256_max_pd(x, y); }
// Lane mask of x > y (false for NaN).
inline __m256 Greater(__m256 x, __m256 y) { return _mm256_cmp_ps(x, y, _CMP_GT_OQ); }
inline __m256d Greater(__m256d x, __m256d y) { return _mm256_cmp_pd(x, y, _CMP_GT_OQ); }
// Lane mask of x >= y (false for NaN).
inline __m256 GreaterEqual(__m256 x, __m256 y) { return _mm256_cmp_ps(x, y, _CMP_GE_OQ); }
inline __m256d GreaterEqual(__m256d x, __m256d y) { return _mm256_cmp_pd(x, y, _CMP_GE_OQ); }
// Lane mask of isnan(x).
inline __m256 IsNan(__m256 x) { return _mm256_cmp_ps(x, x, _CMP_UNORD_Q); }
inline __m256d IsNan(__m256d x) { return _mm256_cmp_pd(x, x, _CMP_UNORD_Q); }
// Lanes set in either mask.
inline __m256 Or(__m256 x, __m256 y) { return _mm256_or_ps(x, y); }
inline __m256d Or(__m256d x, __m256d y) { return _mm256_or_pd(x, y); }
// mask ? if_true : if_false, lane by lane.
inline __m256 Select(__m256 mask, __m256 if_true, __m256 if_false) {
  return _mm256_blendv_ps(if_false, if_true, mask);
}
inline __m256d Select(__m256d mask, __m256d if_true, __m256d if_false) {
  return _mm256_blendv_pd(if_false, if_true, mask);
}
// Correctly rounded square root.
inline __m256 Sqrt(__m256 x) { return _mm256_sqrt_ps(x); }
inline __m256d Sqrt(__m256d x) { return _mm256_sqrt_pd(x); }
// Rounding toward -inf and +inf.
inline __m256 Floor(__m256 x) { return _mm256_floor_ps(x); }
inline __m256d Floor(__m256d x) { return _mm256_floor_pd(x); }
inline __m256 Ceil(__m256 x) { return _mm256_ceil_ps(x); }
inline __m256d Ceil(__m256d x) { return _mm256_ceil_pd(x); }
// Nearest integer, halves to even.
inline __m256 Rint(__m256 x) {
  return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
inline __m256d Rint(__m256d x) {
  return _mm256_round_pd(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

// SLEEF, 1.0-ULP variants, but for float tanh.
// Note [Float tanh as TensorFlow's]: float tanh is Eigen's rational approximation (ptanh), the
// function TensorFlow's CPU kernels use: 1.7 us for 4096 floats on one 2026 AMD EPYC core against
// 4.9 for SLEEF's 3.5-ULP variant and 11.2 for its 1.0-ULP one, and tanh dominates a recurrent
// cell's step. Its error, 2.6e-7 relative at most (measured over [-30, 30] in steps of 1e-4 and
// down to 1e-30), is far inside float32's tolerances against TensorFlow, Keras and PyTorch (2e-5
// in tests/interop/op_diff_rules.py); NaN stays NaN, +-inf gives +-1, tiny values are returned
// as they are. Fused and unfused programs share this function, so they stay equal bit for bit;
// float64 keeps SLEEF's 1.0-ULP variant.
inline __m256 Exp(__m256 x) { return Sleef_expf8_u10avx2(x); }
inline __m256d Exp(__m256d x) { return Sleef_expd4_u10avx2(x); }
inline __m256 Expm1(__m256 x) { return Sleef_expm1f8_u10avx2(x); }
inline __m256d Expm1(__m256d x) { return Sleef_expm1d4_u10avx2(x); }
inline __m256 Log(__m256 x) { return Sleef_logf8_u10avx2(x); }
inline __m256d Log(__m256d x) { return Sleef_logd4_u10avx2(x); }
inline __m256 Log1p(__m256 x) { return Sleef_log1pf8_u10avx2(x); }
inline __m256d Log1p(__m256d x) { return Sleef_log1pd4_u10avx2(x); }
inline __m256 Tanh(__m256 x) { return Eigen::internal::ptanh<Eigen::internal::Packet8f>(x); }
inline __m256d Tanh(__m256d x) { return Sleef_tanhd4_u10avx2(x); }
inline __m256 Erf(__m256 x) { return Sleef_erff8_u10avx2(x); }
inline __m256d Erf(__m256d x) { return Sleef_erfd4_u10avx2(x); }
inline __m256 Erfc(__m256 x) { return Sleef_erfcf8_u15avx2(x); }
inline __m256d Erfc(__m256d x) { return Sleef_erfcd4_u15avx2(x); }
inline __m256 Sin(__m256 x) { return Sleef_sinf8_u10avx2(x); }
inline __m256d Sin(__m256d x) { return Sleef_sind4_u10avx2(x); }
inline __m256 Cos(__m256 x) { return Sleef_cosf8_u10avx2(x); }
inline __m256d Cos(__m256d x) { return Sleef_cosd4_u10avx2(x); }

// Applies `fn` (a callable taking and returning VecT<T>) to x[0, n) into y[0, n). The tail that
// does not fill a whole vector goes through the same vector code via a zero-padded buffer, so an
// element's result never depends on where a thread's chunk boundary falls.
template <typename T, typename Fn>
void Map(const T* x, T* y, int64_t n, Fn fn) {
  constexpr int kLanes = Vec<T>::kLanes;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) Store(y + i, fn(Load(x + i)));
  if (i == n) return;
  T buffer[kLanes] = {};
  const size_t tail_bytes = static_cast<size_t>(n - i) * sizeof(T);
  std::memcpy(buffer, x + i, tail_bytes);
  Store(buffer, fn(Load(buffer)));
  std::memcpy(y + i, buffer, tail_bytes);
}

}  // namespace duet::simd
