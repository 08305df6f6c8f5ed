// CPU kernel of Cast between all eight numeric dtypes. The kernel is picked by the source dtype
// (SrcT, the op's first type attr) and switches on the destination dtype, read from the output
// tensor. Conversions to and from float16/bfloat16 go through float32 with vectorized bulk
// conversions.
//
// Note [Cast with Truncate]
// With Truncate=true, TensorFlow converts float32 to float16 or bfloat16, and float64 to float32
// or float16, by first zeroing the low mantissa bits the destination lacks (its LSBZeroSetter;
// NaN is left alone), then converting as usual: in range, the value is truncated toward zero
// instead of rounded to nearest (float32 1.00488 -> bfloat16 1.0, float64 1.1 -> float32
// 1.0999999). Its other conversions ignore the attr, float64 -> bfloat16 and float16 -> bfloat16
// included (checked against TensorFlow 2.21), and so do duet's.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/cpu/common/half_convert.h"
#include "kernels/cpu/math/cast_value.h"
#include "kernels/cpu/math/elementwise.h"
#include "ops/math/math_attrs.h"

namespace duet {
namespace {

#pragma GCC push_options
#pragma GCC optimize("vect-cost-model=dynamic")

// y[i] = CastValue<D>(x[i]), for dtype pairs without 16-bit floats. GCC does not vectorize loads
// of bool, so bools are read as the bytes 0 and 1 they are stored as.
template <typename S, typename D>
void ConvertRange(const S* __restrict x, D* __restrict y, int64_t n) {
  if constexpr (std::is_same_v<S, bool>) {
    const uint8_t* __restrict bytes = reinterpret_cast<const uint8_t*>(x);
    for (int64_t i = 0; i < n; ++i) y[i] = CastValue<D>(bytes[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = CastValue<D>(x[i]);
  }
}

#pragma GCC pop_options

// x converted to float32, any source dtype.
template <typename S>
void ToFloat(const S* x, float* y, int64_t n) {
  if constexpr (std::is_same_v<S, float16>) {
    HalfToFloat(x, y, n);
  } else if constexpr (std::is_same_v<S, bfloat16>) {
    BFloat16ToFloat(x, y, n);
  } else {
    ConvertRange(x, y, n);
  }
}

// float32 converted to any destination dtype.
template <typename D>
void FromFloat(const float* x, D* y, int64_t n) {
  if constexpr (std::is_same_v<D, float16>) {
    FloatToHalf(x, y, n);
  } else if constexpr (std::is_same_v<D, bfloat16>) {
    FloatToBFloat16(x, y, n);
  } else {
    ConvertRange(x, y, n);
  }
}

// A conversion with a 16-bit float on at least one side: through float32, in cache-sized blocks
// unless one side already is float32.
template <typename S, typename D>
void ConvertViaFloat(const S* x, D* y, int64_t n) {
  if constexpr (std::is_same_v<S, float>) {
    FromFloat(x, y, n);
  } else if constexpr (std::is_same_v<D, float>) {
    ToFloat(x, y, n);
  } else {
    constexpr int64_t kBlock = 1024;
    float buffer[kBlock];
    for (int64_t i = 0; i < n; i += kBlock) {
      const int64_t len = std::min(kBlock, n - i);
      ToFloat(x + i, buffer, len);
      FromFloat(buffer, y + i, len);
    }
  }
}

// y = x as D; a plain copy when the types match (a graph may hold a no-op Cast).
template <typename S, typename D>
void Convert(const S* x, D* y, int64_t n) {
  if constexpr (std::is_same_v<S, D>) {
    std::memcpy(y, x, static_cast<size_t>(n) * sizeof(S));
  } else if constexpr (kIsHalf<S> || kIsHalf<D>) {
    ConvertViaFloat(x, y, n);
  } else {
    ConvertRange(x, y, n);
  }
}

// The mantissa bits (the implicit one included) of the floating types; 0 for the others.
template <typename T>
constexpr int MantissaDigits() {
  if constexpr (std::is_same_v<T, float16>) return 11;
  if constexpr (std::is_same_v<T, bfloat16>) return 8;
  if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::digits;
  return 0;
}

// The unsigned integer of T's size, to reach its bits.
template <typename T>
using BitsOf = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;

// y = x as D with the mantissa bits D lacks zeroed first (NaN left alone: Note [Cast with
// Truncate]), in cache-sized blocks. The bits are masked as integers in a buffer of their own:
// GCC 12 at -O2 drops `& 0xffff0000` applied to a float's bit_cast bits before a store of the
// float (float32 -> bfloat16 then rounded instead of truncating).
template <typename S, typename D>
void TruncatingConvert(const S* x, D* y, int64_t n) {
  using U = BitsOf<S>;
  constexpr U kMask = static_cast<U>(~U{0} << (MantissaDigits<S>() - MantissaDigits<D>()));
  constexpr U kMagnitude = static_cast<U>(~U{0} >> 1);
  constexpr U kInfinity = std::bit_cast<U>(std::numeric_limits<S>::infinity());
  constexpr int64_t kBlock = 1024;
  U bits[kBlock];
  S buffer[kBlock];
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t len = std::min(kBlock, n - i);
    std::memcpy(bits, x + i, static_cast<size_t>(len) * sizeof(S));
    for (int64_t j = 0; j < len; ++j) {
      bits[j] = (bits[j] & kMagnitude) > kInfinity ? bits[j] : bits[j] & kMask;
    }
    std::memcpy(buffer, bits, static_cast<size_t>(len) * sizeof(S));
    Convert(buffer, y + i, len);
  }
}

template <typename S>
absl::Status CastKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const S* src = x.data<S>();
  const bool truncate = ctx.attr(CastAttrs::kTruncate);
  VisitDType(y.dtype(), [&](auto zero) {
    using D = decltype(zero);
    D* dst = y.mutable_data<D>();
    constexpr bool kTruncates = std::is_floating_point_v<S> && MantissaDigits<D>() > 0 &&
                                MantissaDigits<S>() > MantissaDigits<D>() &&
                                !(std::is_same_v<S, double> && std::is_same_v<D, bfloat16>);
    ParallelElements(ctx, x.num_elements(), 2, [&](int64_t i, int64_t end) {
      if constexpr (kTruncates) {
        if (truncate) return TruncatingConvert(src + i, dst + i, end - i);
      }
      Convert(src + i, dst + i, end - i);
    });
  });
  return absl::OkStatus();
}

const KernelRegistrar cast_f32("Cast", DeviceType::kCpu, {kFloat32}, {&CastKernel<float>});
const KernelRegistrar cast_f64("Cast", DeviceType::kCpu, {kFloat64}, {&CastKernel<double>});
const KernelRegistrar cast_f16("Cast", DeviceType::kCpu, {kFloat16}, {&CastKernel<float16>});
const KernelRegistrar cast_bf16("Cast", DeviceType::kCpu, {kBFloat16}, {&CastKernel<bfloat16>});
const KernelRegistrar cast_i32("Cast", DeviceType::kCpu, {kInt32}, {&CastKernel<int32_t>});
const KernelRegistrar cast_i64("Cast", DeviceType::kCpu, {kInt64}, {&CastKernel<int64_t>});
const KernelRegistrar cast_bool("Cast", DeviceType::kCpu, {kBool}, {&CastKernel<bool>});
const KernelRegistrar cast_u8("Cast", DeviceType::kCpu, {kUInt8}, {&CastKernel<uint8_t>});

}  // namespace
}  // namespace duet
