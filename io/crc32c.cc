#include "io/crc32c.h"

#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace duet::io {
namespace {

constexpr uint32_t kPoly = 0x82f63b78;  // CRC-32C, bit-reflected

// Slicing-by-8 tables: kTables[k][b] is the CRC of byte b followed by k zero bytes.
struct Tables {
  uint32_t t[8][256];
  Tables() {
    for (uint32_t b = 0; b < 256; ++b) {
      uint32_t crc = b;
      for (int i = 0; i < 8; ++i) crc = (crc >> 1) ^ (kPoly & (0u - (crc & 1)));
      t[0][b] = crc;
    }
    for (uint32_t b = 0; b < 256; ++b) {
      for (int k = 1; k < 8; ++k) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
    }
  }
};
const Tables& SoftwareTables() {
  static const Tables* tables = new Tables();
  return *tables;
}

inline uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;  // x86-64 and every target duet builds for are little-endian
}

#if defined(__x86_64__)
// Note [Three crc32 streams]: the crc32 instruction has a latency of 3 cycles and a throughput of
// one per cycle, so one dependent chain runs at a third of the possible speed. Large buffers are
// cut into three consecutive blocks whose CRCs are computed interleaved; the first block's CRC is
// then advanced over the other blocks' lengths of zero bytes (a linear map on the CRC register,
// applied through four 256-entry tables) and combined by XOR (Mark Adler's crc32c.c scheme).
constexpr size_t kLong = 8192;
constexpr size_t kShort = 256;

// GF(2) 32x32 matrices as 32 column vectors.
uint32_t MatrixTimes(const uint32_t* mat, uint32_t vec) {
  uint32_t sum = 0;
  for (; vec != 0; vec >>= 1, ++mat) {
    if (vec & 1) sum ^= *mat;
  }
  return sum;
}
void MatrixSquare(uint32_t* square, const uint32_t* mat) {
  for (int n = 0; n < 32; ++n) square[n] = MatrixTimes(mat, mat[n]);
}

// The tables that advance a CRC register over `len` zero bytes (`len` a power of two).
struct ShiftTables {
  uint32_t t[4][256];
  explicit ShiftTables(size_t len) {
    uint32_t odd[32], even[32];
    odd[0] = kPoly;  // one zero bit
    for (int n = 1; n < 32; ++n) odd[n] = 1u << (n - 1);
    MatrixSquare(even, odd);  // two zero bits
    MatrixSquare(odd, even);  // four
    const uint32_t* op = nullptr;
    while (true) {
      MatrixSquare(even, odd);
      len >>= 1;
      if (len == 0) {
        op = even;
        break;
      }
      MatrixSquare(odd, even);
      len >>= 1;
      if (len == 0) {
        op = odd;
        break;
      }
    }
    for (uint32_t n = 0; n < 256; ++n) {
      for (int k = 0; k < 4; ++k) t[k][n] = MatrixTimes(op, n << (8 * k));
    }
  }
  uint32_t Shift(uint32_t crc) const {
    return t[0][crc & 0xff] ^ t[1][(crc >> 8) & 0xff] ^ t[2][(crc >> 16) & 0xff] ^ t[3][crc >> 24];
  }
};
const ShiftTables& LongShift() {
  static const ShiftTables* tables = new ShiftTables(kLong);
  return *tables;
}
const ShiftTables& ShortShift() {
  static const ShiftTables* tables = new ShiftTables(kShort);
  return *tables;
}

__attribute__((target("sse4.2"))) uint64_t ThreeStreams(uint64_t crc0, const uint8_t*& p, size_t& n,
                                                        size_t block, const ShiftTables& shift) {
  while (n >= 3 * block) {
    uint64_t crc1 = 0, crc2 = 0;
    const uint8_t* const end = p + block;
    do {
      crc0 = _mm_crc32_u64(crc0, Load64(p));
      crc1 = _mm_crc32_u64(crc1, Load64(p + block));
      crc2 = _mm_crc32_u64(crc2, Load64(p + 2 * block));
      p += 8;
    } while (p < end);
    crc0 = shift.Shift(static_cast<uint32_t>(crc0)) ^ crc1;
    crc0 = shift.Shift(static_cast<uint32_t>(crc0)) ^ crc2;
    p += 2 * block;
    n -= 3 * block;
  }
  return crc0;
}
#endif

}  // namespace

namespace internal {

uint32_t Crc32cExtendPortable(uint32_t crc, const void* data, size_t n) {
  const auto& t = SoftwareTables().t;
  const uint8_t* p = static_cast<const uint8_t*>(data);
  uint32_t c = ~crc;
  for (; n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0; --n) {
    c = (c >> 8) ^ t[0][(c ^ *p++) & 0xff];
  }
  for (; n >= 8; n -= 8, p += 8) {
    const uint64_t v = Load64(p) ^ c;
    c = t[7][v & 0xff] ^ t[6][(v >> 8) & 0xff] ^ t[5][(v >> 16) & 0xff] ^ t[4][(v >> 24) & 0xff] ^
        t[3][(v >> 32) & 0xff] ^ t[2][(v >> 40) & 0xff] ^ t[1][(v >> 48) & 0xff] ^ t[0][v >> 56];
  }
  for (; n > 0; --n) c = (c >> 8) ^ t[0][(c ^ *p++) & 0xff];
  return ~c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t Crc32cExtendSse42(uint32_t crc, const void* data,
                                                             size_t n) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  uint64_t c = ~crc;
  for (; n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0; --n) {
    c = _mm_crc32_u8(static_cast<uint32_t>(c), *p++);
  }
  if (n >= 3 * kShort) {
    c = ThreeStreams(c, p, n, kLong, LongShift());
    c = ThreeStreams(c, p, n, kShort, ShortShift());
  }
  for (; n >= 8; n -= 8, p += 8) c = _mm_crc32_u64(c, Load64(p));
  for (; n > 0; --n) c = _mm_crc32_u8(static_cast<uint32_t>(c), *p++);
  return ~static_cast<uint32_t>(c);
}

bool HasSse42() {
  static const bool has = [] {
    __builtin_cpu_init();  // needed when first called from a static initializer
    return __builtin_cpu_supports("sse4.2") != 0;
  }();
  return has;
}
#else
uint32_t Crc32cExtendSse42(uint32_t crc, const void* data, size_t n) {
  return Crc32cExtendPortable(crc, data, n);
}
bool HasSse42() { return false; }
#endif

}  // namespace internal

uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t n) {
  return internal::HasSse42() ? internal::Crc32cExtendSse42(crc, data, n)
                              : internal::Crc32cExtendPortable(crc, data, n);
}

uint32_t Crc32c(const void* data, size_t n) { return Crc32cExtend(0, data, n); }

}  // namespace duet::io
