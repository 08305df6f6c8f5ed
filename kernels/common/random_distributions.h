// Turning Philox blocks into uniform and normal floats exactly as TensorFlow's
// random_distributions.h does, so a seed gives TensorFlow's numbers.
//
// The CUDA kernels compile these same functions for the device. Uniform values are bit-identical
// there; normal values go through CUDA's logf/sincosf (log/sincos), which may differ from glibc's
// in the last ulp or two, so the GPU's normals match the CPU's within a few ulps, not bitwise.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/common/philox.h"

namespace duet::philox {

// A float in [0, 1) from the low 23 bits of `x`: 1.m - 1.
DUET_HOST_DEVICE float Uint32ToFloat(uint32_t x) {
  const uint32_t bits = (127u << 23) | (x & 0x7fffffu);
#if defined(__CUDA_ARCH__)
  const float f = __uint_as_float(bits);
#else
  float f;
  std::memcpy(&f, &bits, sizeof(f));
#endif
  return f - 1.0f;
}

// A double in [0, 1) from 52 bits: the low 20 bits of `hi` and all of `lo`.
DUET_HOST_DEVICE double Uint64ToDouble(uint32_t hi, uint32_t lo) {
  const uint64_t mantissa = (static_cast<uint64_t>(hi & 0xfffffu) << 32) | lo;
  const uint64_t bits = (uint64_t{1023} << 52) | mantissa;
#if defined(__CUDA_ARCH__)
  const double d = __longlong_as_double(static_cast<long long>(bits));
#else
  double d;
  std::memcpy(&d, &bits, sizeof(d));
#endif
  return d - 1.0;
}

// Box-Muller: two uniforms to two standard normals. The expression order matches TensorFlow's
// BoxMullerFloat (2 * M_PI is a double, so the angle is computed in double and rounded to float).
DUET_HOST_DEVICE void BoxMuller(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  float u1 = Uint32ToFloat(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;  // keeps log() finite
  const float v1 = static_cast<float>(2.0f * M_PI * Uint32ToFloat(x1));
  const float u2 = std::sqrt(-2.0f * std::log(u1));
  sincosf(v1, f0, f1);
  *f0 *= u2;
  *f1 *= u2;
}

// The double version, from four words (TensorFlow's BoxMullerDouble).
DUET_HOST_DEVICE void BoxMuller(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double* d0,
                                double* d1) {
  double u1 = Uint64ToDouble(x0, x1);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double v1 = 2 * M_PI * Uint64ToDouble(x2, x3);
  const double u2 = std::sqrt(-2.0 * std::log(u1));
  sincos(v1, d0, d1);
  *d0 *= u2;
  *d1 *= u2;
}

// Uniform [0, 1) values of T from one block: four floats or two doubles.
template <typename T>
struct Uniform;
template <>
struct Uniform<float> {
  static constexpr int kPerBlock = 4;
  DUET_HOST_DEVICE static void Fill(const Block& b, float* out) {
    for (int i = 0; i < 4; ++i) out[i] = Uint32ToFloat(b[i]);
  }
};
template <>
struct Uniform<double> {
  static constexpr int kPerBlock = 2;
  DUET_HOST_DEVICE static void Fill(const Block& b, double* out) {
    out[0] = Uint64ToDouble(b[0], b[1]);
    out[1] = Uint64ToDouble(b[2], b[3]);
  }
};

// Standard normal values of T from one block: four floats or two doubles.
template <typename T>
struct Normal;
template <>
struct Normal<float> {
  static constexpr int kPerBlock = 4;
  DUET_HOST_DEVICE static void Fill(const Block& b, float* out) {
    BoxMuller(b[0], b[1], &out[0], &out[1]);
    BoxMuller(b[2], b[3], &out[2], &out[3]);
  }
};
template <>
struct Normal<double> {
  static constexpr int kPerBlock = 2;
  DUET_HOST_DEVICE static void Fill(const Block& b, double* out) {
    BoxMuller(b[0], b[1], b[2], b[3], &out[0], &out[1]);
  }
};

}  // namespace duet::philox
