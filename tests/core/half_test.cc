// float16 and bfloat16 conversions; expected bit patterns from NumPy (np.float16(x).view('u2'))
// and ml_dtypes.bfloat16.
#include "core/half.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

namespace duet {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

TEST_CASE("float16 from float rounds to nearest even") {
  CHECK(float16(1.0f).bits == 0x3c00);
  CHECK(float16(-2.0f).bits == 0xc000);
  CHECK(float16(0.1f).bits == 0x2e66);
  CHECK(float16(65504.f).bits == 0x7bff);  // largest finite
  CHECK(float16(65520.f).bits == 0x7c00);  // halfway to 65536 rounds up to inf
  CHECK(float16(65519.f).bits == 0x7bff);
  CHECK(float16(1.0f + 0x1p-11f).bits == 0x3c00);      // tie: to even (down)
  CHECK(float16(1.0f + 3 * 0x1p-11f).bits == 0x3c02);  // tie: to even (up)
  CHECK(float16(0x1p-24f).bits == 0x0001);             // smallest subnormal
  CHECK(float16(0x1p-26f).bits == 0x0000);             // underflows to zero
  CHECK(float16(-0.0f).bits == 0x8000);
}

TEST_CASE("float16 infinities and NaN") {
  CHECK(float16(kInf).bits == 0x7c00);
  CHECK(float16(-kInf).bits == 0xfc00);
  CHECK(float16(1e10f).bits == 0x7c00);
  CHECK(std::isnan(static_cast<float>(float16(std::nanf("")))));
  CHECK(std::isinf(static_cast<float>(float16::FromBits(0xfc00))));
  CHECK(std::isnan(static_cast<float>(float16::FromBits(0x7e00))));
}

TEST_CASE("float16 to float is exact") {
  CHECK(static_cast<float>(float16::FromBits(0x3c00)) == 1.0f);
  CHECK(static_cast<float>(float16::FromBits(0x2e66)) == 0.0999755859375f);
  CHECK(static_cast<float>(float16::FromBits(0x0001)) == 0x1p-24f);
  CHECK(static_cast<float>(float16::FromBits(0x7bff)) == 65504.f);
  for (uint32_t b = 0; b < 0x7c00; b += 7) {  // every 7th finite positive value round trips
    const float16 h = float16::FromBits(static_cast<uint16_t>(b));
    REQUIRE(float16(static_cast<float>(h)).bits == b);
  }
}

TEST_CASE("bfloat16 from float rounds to nearest even") {
  CHECK(bfloat16(1.0f).bits == 0x3f80);
  CHECK(bfloat16(0.1f).bits == 0x3dcd);  // 0x3dcccccd rounds up
  CHECK(bfloat16(-3.0f).bits == 0xc040);
  CHECK(bfloat16(1.0f + 0x1p-8f).bits == 0x3f80);                     // tie: to even (down)
  CHECK(bfloat16(1.0f + 3 * 0x1p-8f).bits == 0x3f82);                 // tie: to even (up)
  CHECK(bfloat16(std::numeric_limits<float>::max()).bits == 0x7f80);  // rounds to inf
  CHECK(bfloat16(-0.0f).bits == 0x8000);
}

TEST_CASE("bfloat16 infinities and NaN") {
  CHECK(bfloat16(kInf).bits == 0x7f80);
  CHECK(bfloat16(-kInf).bits == 0xff80);
  // A NaN whose payload is only in the low bits must stay NaN, not become inf.
  const uint32_t low_payload_nan = 0x7f800001;
  float f;
  std::memcpy(&f, &low_payload_nan, 4);
  CHECK(std::isnan(static_cast<float>(bfloat16(f))));
  CHECK(std::isnan(static_cast<float>(bfloat16(std::nanf("")))));
}

TEST_CASE("bfloat16 to float is exact") {
  CHECK(static_cast<float>(bfloat16::FromBits(0x3dcd)) == 0.10009765625f);
  CHECK(static_cast<float>(bfloat16::FromBits(0xc040)) == -3.0f);
  CHECK(std::isinf(static_cast<float>(bfloat16::FromBits(0x7f80))));
}

}  // namespace
}  // namespace duet
