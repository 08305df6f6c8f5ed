// Philox4x32-10, the counter-based generator of Salmon et al., "Parallel Random Numbers: As Easy
// as 1, 2, 3" (SC'11), as TensorFlow's stateless random ops use it. Counter-based: block i of a
// stream is Philox(counter + i, key), so any thread (or GPU lane) computes any block directly and
// the numbers do not depend on how the work is split.
#pragma once

#include <cstdint>

#include "kernels/common/host_device.h"

namespace duet::philox {

// N 32-bit words, brace-initialized like std::array. Not std::array itself: its members are
// constexpr host functions, which nvcc rejects in device code (the CUDA kernels share this file)
// unless every .cu is compiled with --expt-relaxed-constexpr.
template <int N>
struct Words {
  uint32_t w[N];
  DUET_HOST_DEVICE uint32_t& operator[](int i) { return w[i]; }
  DUET_HOST_DEVICE const uint32_t& operator[](int i) const { return w[i]; }
  DUET_HOST_DEVICE friend bool operator==(const Words& a, const Words& b) {
    for (int i = 0; i < N; ++i) {
      if (a.w[i] != b.w[i]) return false;
    }
    return true;
  }
};

using Counter = Words<4>;  // 128-bit block counter, least significant word first
using Key = Words<2>;
using Block = Words<4>;  // one output: four 32-bit random words

// The round multipliers and the Weyl key increments (the golden ratio and sqrt(3) - 1).
inline constexpr uint32_t kMultiplier0 = 0xD2511F53;
inline constexpr uint32_t kMultiplier1 = 0xCD9E8D57;
inline constexpr uint32_t kKeyBump0 = 0x9E3779B9;
inline constexpr uint32_t kKeyBump1 = 0xBB67AE85;

// One Philox S-box round.
DUET_HOST_DEVICE Counter Round(const Counter& c, const Key& k) {
  const uint64_t p0 = static_cast<uint64_t>(kMultiplier0) * c[0];
  const uint64_t p1 = static_cast<uint64_t>(kMultiplier1) * c[2];
  const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
  const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
  return {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
}

// Philox4x32-10: ten rounds, the key bumped between them.
DUET_HOST_DEVICE Block Philox4x32(Counter c, Key k) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k[0] += kKeyBump0;
      k[1] += kKeyBump1;
    }
    c = Round(c, k);
  }
  return c;
}

// `c` advanced by `n` blocks (128-bit addition), like TensorFlow's PhiloxRandom::Skip.
DUET_HOST_DEVICE Counter Advance(Counter c, uint64_t n) {
  uint64_t carry = n;
  for (int i = 0; i < 4 && carry != 0; ++i) {
    const uint64_t sum = static_cast<uint64_t>(c[i]) + static_cast<uint32_t>(carry);
    c[i] = static_cast<uint32_t>(sum);
    carry = (carry >> 32) + (sum >> 32);
  }
  return c;
}

// A stateless stream: its key and starting counter.
struct Stream {
  Key key;
  Counter counter;
};

// TensorFlow's stateless seed scrambling (GenerateKey in stateless_random_ops.cc): the seed pair
// fills a counter, one Philox block under a fixed key mixes it, and the block becomes the key and
// the upper counter words. Users need not worry which half of the seed is "strong".
DUET_HOST_DEVICE Stream StreamFromSeed(uint64_t seed0, uint64_t seed1) {
  const Counter c = {static_cast<uint32_t>(seed0), static_cast<uint32_t>(seed0 >> 32),
                     static_cast<uint32_t>(seed1), static_cast<uint32_t>(seed1 >> 32)};
  const Block mix = Philox4x32(c, {0x3ec8f720, 0x02461e29});
  return {{mix[0], mix[1]}, {0, 0, mix[2], mix[3]}};
}

}  // namespace duet::philox
