// CPU kernel of Cast between all eight numeric dtypes. The kernel is picked by the source dtype
// (SrcT, the op's first type attr) and switches on the destination dtype, read from the output
// tensor. Conversions to and from float16/bfloat16 go through float32 with vectorized bulk
// conversions.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/cpu/common/half_convert.h"
#include "kernels/cpu/math/cast_value.h"
#include "kernels/cpu/math/elementwise.h"

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

template <typename S>
absl::Status CastKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const S* src = x.data<S>();
  VisitDType(y.dtype(), [&](auto zero) {
    using D = decltype(zero);
    D* dst = y.mutable_data<D>();
    ParallelElements(ctx, x.num_elements(), 2,
                     [&](int64_t i, int64_t end) { Convert(src + i, dst + i, end - i); });
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
