// CPU kernel of LeakyRelu: features > 0 ? features : alpha * features, with alpha an attr, so it is
// a lambda over simd vectors rather than a stateless functor (float16/bfloat16 staged through
// float32 like half_kernels.h).
#include <algorithm>
#include <cstdint>

#include "kernels/cpu/math/elementwise.h"
#include "kernels/cpu/math/half_kernels.h"
#include "ops/math/math_attrs.h"

namespace duet {
namespace {

template <typename T>
void LeakyRelu(const T* x, T* y, int64_t n, double alpha) {
  using V = simd::VecT<T>;
  const V a = simd::Set1<V>(alpha);
  const V zero = simd::Set1<V>(0.0);
  simd::Map(x, y, n, [&](V v) { return simd::Select(simd::Greater(v, zero), v, v * a); });
}

template <typename T>
absl::Status LeakyReluKernel(KernelContext& ctx) {
  const double alpha = ctx.attr(LeakyReluAttrs::kAlpha);
  const T* x = ctx.input(0).data<T>();
  T* y = ctx.output(0).mutable_data<T>();
  ParallelElements(ctx, ElementCount(ctx.input(0).shape()), 2,
                   [&](int64_t i, int64_t e) { LeakyRelu(x + i, y + i, e - i, alpha); });
  return absl::OkStatus();
}

template <typename Half>
absl::Status HalfLeakyReluKernel(KernelContext& ctx) {
  const double alpha = ctx.attr(LeakyReluAttrs::kAlpha);
  const Half* x = ctx.input(0).data<Half>();
  Half* y = ctx.output(0).mutable_data<Half>();
  ParallelElements(ctx, ElementCount(ctx.input(0).shape()), 4, [&](int64_t begin, int64_t end) {
    constexpr int64_t kBlock = 512;
    float in[kBlock], out[kBlock];
    for (int64_t i = begin; i < end; i += kBlock) {
      const int64_t len = std::min(kBlock, end - i);
      ToFloat32(x + i, in, len);
      LeakyRelu(in, out, len, alpha);
      FromFloat32(out, y + i, len);
    }
  });
  return absl::OkStatus();
}

const bool registered = [] {
  RegisterKernel("LeakyRelu", DeviceType::kCpu, {kFloat32}, KernelDef{&LeakyReluKernel<float>});
  RegisterKernel("LeakyRelu", DeviceType::kCpu, {kFloat64}, KernelDef{&LeakyReluKernel<double>});
  RegisterKernel("LeakyRelu", DeviceType::kCpu, {kFloat16},
                 KernelDef{&HalfLeakyReluKernel<float16>});
  RegisterKernel("LeakyRelu", DeviceType::kCpu, {kBFloat16},
                 KernelDef{&HalfLeakyReluKernel<bfloat16>});
  return true;
}();

}  // namespace
}  // namespace duet
