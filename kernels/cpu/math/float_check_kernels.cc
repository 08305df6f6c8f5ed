// CPU kernels of IsNan, IsInf, IsFinite and CheckNumerics. float16 and bfloat16 are widened to
// float32 in stack blocks (every 16-bit NaN and infinity stays one in float32).
#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/math/elementwise.h"
#include "kernels/cpu/math/functors.h"
#include "kernels/cpu/math/half_kernels.h"
#include "ops/math/math_attrs.h"

namespace duet {
namespace {

constexpr int64_t kBlock = 512;  // 16-bit floats widened per step

// A bool per element from a 16-bit float input: widen a block, classify it.
template <typename Half, typename Op>
absl::Status HalfClassKernel(KernelContext& ctx) {
  const Half* x = ctx.input(0).data<Half>();
  bool* z = ctx.output(0).mutable_data<bool>();
  ParallelElements(ctx, ElementCount(ctx.input(0).shape()), 3, [&](int64_t begin, int64_t end) {
    float in[kBlock];
    for (int64_t i = begin; i < end; i += kBlock) {
      const int64_t len = std::min(kBlock, end - i);
      ToFloat32(x + i, in, len);
      MapUnary(in, z + i, len, Op{});
    }
  });
  return absl::OkStatus();
}

template <typename Op>
void RegisterClassKernels(absl::string_view name) {
  RegisterUnaryKernels<Op, float, double>(name);
  RegisterKernel(name, DeviceType::kCpu, {kFloat16}, KernelDef{&HalfClassKernel<float16, Op>});
  RegisterKernel(name, DeviceType::kCpu, {kBFloat16}, KernelDef{&HalfClassKernel<bfloat16, Op>});
}

// What a scan of n elements found: bit 0 a NaN, bit 1 an infinity. The loop has no early exit
// so that it vectorizes; a tensor is read once either way.
template <typename T>
unsigned NonFiniteBits(const T* x, int64_t n) {
  bool nan = false, inf = false;
  for (int64_t i = 0; i < n; ++i) {
    nan |= IsNanFn{}(x[i]);
    inf |= IsInfFn{}(x[i]);
  }
  return (nan ? 1u : 0u) | (inf ? 2u : 0u);
}

template <typename T>
unsigned ScanNonFinite(const KernelContext& ctx, const T* x, int64_t n) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    float in[kBlock];
    unsigned bits = 0;
    for (int64_t i = 0; i < n; i += kBlock) {
      const int64_t len = std::min(kBlock, n - i);
      ToFloat32(x + i, in, len);
      bits |= NonFiniteBits(in, len);
    }
    return bits;
  } else {
    (void)ctx;
    return NonFiniteBits(x, n);
  }
}

// TensorFlow's wording: "<message> : Tensor had NaN values" (or Inf, or Inf and NaN).
absl::Status NonFiniteError(const std::string& message, unsigned bits) {
  const char* what = bits == 3 ? "Inf and NaN" : bits == 1 ? "NaN" : "Inf";
  return absl::InvalidArgumentError(absl::StrCat(message, " : Tensor had ", what, " values"));
}

// Passes the input on as a view (no copy) when it is all finite.
template <typename T>
absl::Status CheckNumericsKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const unsigned bits = ScanNonFinite(ctx, x.data<T>(), ElementCount(x.shape()));
  if (bits != 0) return NonFiniteError(ctx.attr(CheckNumericsAttrs::kMessage), bits);
  ctx.output(0) = x.ViewAs(x.dtype(), x.shape(), ctx.device());
  return absl::OkStatus();
}

const bool registered = [] {
  RegisterClassKernels<IsNanFn>("IsNan");
  RegisterClassKernels<IsInfFn>("IsInf");
  RegisterClassKernels<IsFiniteFn>("IsFinite");
  RegisterKernel("CheckNumerics", DeviceType::kCpu, {kFloat32},
                 KernelDef{&CheckNumericsKernel<float>, /*allocates_outputs=*/true});
  RegisterKernel("CheckNumerics", DeviceType::kCpu, {kFloat64},
                 KernelDef{&CheckNumericsKernel<double>, /*allocates_outputs=*/true});
  RegisterKernel("CheckNumerics", DeviceType::kCpu, {kFloat16},
                 KernelDef{&CheckNumericsKernel<float16>, /*allocates_outputs=*/true});
  RegisterKernel("CheckNumerics", DeviceType::kCpu, {kBFloat16},
                 KernelDef{&CheckNumericsKernel<bfloat16>, /*allocates_outputs=*/true});
  return true;
}();

}  // namespace
}  // namespace duet
