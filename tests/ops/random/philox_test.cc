// Philox4x32-10 against the known-answer vectors published with Random123 (kat_vectors).
#include "kernels/common/philox.h"

#include <catch2/catch.hpp>

#include "kernels/common/random_distributions.h"

namespace duet::philox {
namespace {

TEST_CASE("Philox4x32-10 matches the Random123 known-answer vectors") {
  CHECK(Philox4x32({0, 0, 0, 0}, {0, 0}) == Block{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  CHECK(Philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}) ==
        Block{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  CHECK(Philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}) ==
        Block{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

TEST_CASE("Advance adds to the 128-bit counter with carries") {
  CHECK(Advance({1, 2, 3, 4}, 5) == Counter{6, 2, 3, 4});
  CHECK(Advance({0xffffffff, 0, 0, 0}, 1) == Counter{0, 1, 0, 0});
  CHECK(Advance({0xffffffff, 0xffffffff, 0xffffffff, 0}, 1) == Counter{0, 0, 0, 1});
  CHECK(Advance({0xffffffff, 0xffffffff, 7, 0}, 0x100000001) == Counter{0, 1, 8, 0});
  CHECK(Advance({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, 1) == Counter{0, 0, 0, 0});
}

TEST_CASE("Uniform conversions cover [0, 1)") {
  CHECK(Uint32ToFloat(0) == 0.0f);
  CHECK(Uint32ToFloat(0xffffffff) == 1.0f - 0x1p-23f);
  CHECK(Uint32ToFloat(0x00400000) == 0.5f);
  CHECK(Uint64ToDouble(0, 0) == 0.0);
  CHECK(Uint64ToDouble(0xffffffff, 0xffffffff) == 1.0 - 0x1p-52);
  CHECK(Uint64ToDouble(0x80000, 0) == 0.5);
}

TEST_CASE("Box-Muller keeps log finite for a zero uniform") {
  float a, b;
  BoxMuller(0, 0, &a, &b);  // u1 = 0 is clamped to 1e-7, angle 0
  CHECK(a == 0.0f);
  CHECK(b == Approx(std::sqrt(-2 * std::log(1e-7))).epsilon(1e-6));
}

}  // namespace
}  // namespace duet::philox
