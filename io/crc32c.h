// CRC-32C (Castagnoli), the checksum of TensorFlow's checkpoints (TensorBundle) and TFRecord files.
#pragma once

#include <cstddef>
#include <cstdint>

namespace duet::io {

// The CRC-32C of n bytes (the SSE4.2 crc32 instruction where the CPU has it, else a table).
uint32_t Crc32c(const void* data, size_t n);
// The CRC-32C of the bytes `crc` covers followed by these n: Crc32cExtend(Crc32c(a), b) is the
// CRC-32C of a then b, and Crc32cExtend(0, p, n) == Crc32c(p, n).
uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t n);

// LevelDB's and TensorFlow's masking of a stored CRC (so that a CRC of bytes that contain CRCs
// stays a good checksum): rotate right by 15 bits and add a constant.
inline uint32_t MaskCrc32c(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }
inline uint32_t UnmaskCrc32c(uint32_t masked) {
  const uint32_t rotated = masked - 0xa282ead8u;
  return (rotated >> 17) | (rotated << 15);
}

namespace internal {
// The two implementations Crc32cExtend chooses between, for tests and benchmarks.
uint32_t Crc32cExtendPortable(uint32_t crc, const void* data, size_t n);
// Only where HasSse42() is true.
uint32_t Crc32cExtendSse42(uint32_t crc, const void* data, size_t n);
bool HasSse42();
}  // namespace internal

}  // namespace duet::io
