#include "io/crc32c.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace duet::io {
namespace {

TEST_CASE("crc32c matches RFC 3720's vectors") {
  const std::string zeros(32, '\0'), ones(32, '\xff');
  std::string ascending(32, '\0'), descending(32, '\0');
  for (int i = 0; i < 32; ++i) {
    ascending[i] = static_cast<char>(i);
    descending[i] = static_cast<char>(31 - i);
  }
  CHECK(Crc32c(zeros.data(), zeros.size()) == 0x8A9136AAu);
  CHECK(Crc32c(ones.data(), ones.size()) == 0x62A8AB43u);
  CHECK(Crc32c(ascending.data(), ascending.size()) == 0x46DD794Eu);
  CHECK(Crc32c(descending.data(), descending.size()) == 0x113FDB5Cu);
  CHECK(Crc32c("123456789", 9) == 0xE3069283u);
  CHECK(Crc32c("", 0) == 0u);
  CHECK(internal::Crc32cExtendPortable(0, "123456789", 9) == 0xE3069283u);
  if (internal::HasSse42()) CHECK(internal::Crc32cExtendSse42(0, "123456789", 9) == 0xE3069283u);
}

TEST_CASE("crc32c extends in pieces as over the whole") {
  const std::string text = "The quick brown fox jumps over the lazy dog";
  const uint32_t whole = Crc32c(text.data(), text.size());
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    CHECK(Crc32cExtend(Crc32c(text.data(), cut), text.data() + cut, text.size() - cut) == whole);
  }
}

TEST_CASE("masking round-trips and matches LevelDB's") {
  for (uint32_t crc : {0u, 1u, 0xE3069283u, 0xffffffffu, 0x12345678u}) {
    CHECK(UnmaskCrc32c(MaskCrc32c(crc)) == crc);
    CHECK(MaskCrc32c(crc) != crc);
  }
  CHECK(MaskCrc32c(0) == 0xa282ead8u);
}

TEST_CASE("the SSE4.2 and portable implementations agree on every length and alignment") {
  if (!internal::HasSse42()) {
    WARN("this CPU has no SSE4.2: only the portable implementation runs");
    return;
  }
  std::mt19937_64 rng(42);
  std::vector<uint8_t> buffer(3 * 8192 * 2 + 1024);
  for (auto& b : buffer) b = static_cast<uint8_t>(rng());
  std::vector<size_t> lengths;
  for (size_t n = 0; n < 800; ++n) lengths.push_back(n);
  for (size_t n :
       std::initializer_list<size_t>{3 * 256 - 1, 3 * 256, 3 * 256 + 1, 3 * 8192 - 1, 3 * 8192,
                                     3 * 8192 + 7, 2 * 3 * 8192 + 3 * 256 + 5, buffer.size() - 8}) {
    lengths.push_back(n);
  }
  for (int i = 0; i < 200; ++i) lengths.push_back(rng() % (buffer.size() - 8));
  for (size_t n : lengths) {
    for (size_t align = 0; align < 8; ++align) {
      const uint32_t seed = static_cast<uint32_t>(rng());
      INFO("length " << n << ", alignment " << align);
      REQUIRE(internal::Crc32cExtendSse42(seed, buffer.data() + align, n) ==
              internal::Crc32cExtendPortable(seed, buffer.data() + align, n));
    }
  }
}

// Prints the speed (not asserted: timings are compared in tools/bench/, never in tests).
TEST_CASE("crc32c speed") {
  std::vector<uint8_t> buffer(64 << 20, 0x5a);
  auto time = [&](auto fn) {
    const auto start = std::chrono::steady_clock::now();
    const uint32_t crc = fn(buffer.data(), buffer.size());
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::make_pair(crc, buffer.size() / seconds / 1e9);
  };
  const auto [hw, hw_speed] = time([](const void* p, size_t n) { return Crc32c(p, n); });
  const auto [sw, sw_speed] =
      time([](const void* p, size_t n) { return internal::Crc32cExtendPortable(0, p, n); });
  CHECK(hw == sw);
  std::printf("crc32c over 64 MiB: %.2f GB/s (dispatched), %.2f GB/s (portable)\n", hw_speed,
              sw_speed);
}

}  // namespace
}  // namespace duet::io
