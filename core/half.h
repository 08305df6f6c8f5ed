// 16-bit floating point storage types (IEEE float16 and bfloat16) with float conversions.
#pragma once

#include <cstdint>
#include <cstring>

namespace duet {

// IEEE 754 binary16. Storage only: arithmetic converts to float.
struct float16 {
  uint16_t bits = 0;
  float16() = default;
  explicit float16(float f);
  explicit operator float() const;
  static float16 FromBits(uint16_t b) {
    float16 h;
    h.bits = b;
    return h;
  }
};

// bfloat16: the top 16 bits of a float32, rounded to nearest even.
struct bfloat16 {
  uint16_t bits = 0;
  bfloat16() = default;
  explicit bfloat16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) {  // NaN: keep it a quiet NaN
      bits = static_cast<uint16_t>((u >> 16) | 0x40);
      return;
    }
    u += 0x7fffu + ((u >> 16) & 1u);
    bits = static_cast<uint16_t>(u >> 16);
  }
  explicit operator float() const {
    uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  static bfloat16 FromBits(uint16_t b) {
    bfloat16 h;
    h.bits = b;
    return h;
  }
};

inline float16::float16(float f) {
  // _Float16 (GCC 12, x86-64) converts with IEEE round-to-nearest-even.
  _Float16 h = static_cast<_Float16>(f);
  std::memcpy(&bits, &h, 2);
}

inline float16::operator float() const {
  _Float16 h;
  std::memcpy(&h, &bits, 2);
  return static_cast<float>(h);
}

}  // namespace duet
