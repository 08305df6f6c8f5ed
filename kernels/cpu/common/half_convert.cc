#include "kernels/cpu/common/half_convert.h"

#include <immintrin.h>

#include <cstring>

namespace duet {

// GCC does not vectorize _Float16 conversions, so float16 uses the F16C instructions directly,
// with the scalar struct conversion (the same rounding) for the tail.
void HalfToFloat(const float16* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i));
    _mm256_storeu_ps(y + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) y[i] = static_cast<float>(x[i]);
}

void FloatToHalf(const float* x, float16* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), h);
  }
  for (; i < n; ++i) y[i] = float16(x[i]);
}

#pragma GCC push_options
#pragma GCC optimize("vect-cost-model=dynamic")

// bfloat16 is the top half of a float32, so both directions are integer bit operations that the
// compiler vectorizes; the rounding matches the bfloat16 struct in core/half.h.
void BFloat16ToFloat(const bfloat16* x, float* __restrict y, int64_t n) {
  const uint16_t* bits = reinterpret_cast<const uint16_t*>(x);
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t u = static_cast<uint32_t>(bits[i]) << 16;
    std::memcpy(&y[i], &u, sizeof(u));
  }
}

void FloatToBFloat16(const float* x, bfloat16* y, int64_t n) {
  uint16_t* __restrict bits = reinterpret_cast<uint16_t*>(y);
  for (int64_t i = 0; i < n; ++i) {
    uint32_t u;
    std::memcpy(&u, &x[i], sizeof(u));
    const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    const uint32_t quiet_nan = (u >> 16) | 0x40u;
    bits[i] = static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
  }
}

#pragma GCC pop_options

}  // namespace duet
