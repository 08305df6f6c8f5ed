// Elementwise kernels for float16 and bfloat16: they compute in float32 with the float functors,
// then round the result once, which is also what TensorFlow's Eigen half types do per element.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "absl/strings/string_view.h"
#include "kernels/cpu/common/half_convert.h"
#include "kernels/cpu/math/elementwise.h"

namespace duet {

// Converts n 16-bit floats to float32 and back (overloaded on the 16-bit type).
inline void ToFloat32(const float16* x, float* y, int64_t n) { HalfToFloat(x, y, n); }
inline void ToFloat32(const bfloat16* x, float* y, int64_t n) { BFloat16ToFloat(x, y, n); }
inline void FromFloat32(const float* x, float16* y, int64_t n) { FloatToHalf(x, y, n); }
inline void FromFloat32(const float* x, bfloat16* y, int64_t n) { FloatToBFloat16(x, y, n); }

// A float32 copy of a float16/bfloat16 tensor.
template <typename Half>
absl::StatusOr<Tensor> WidenToFloat32(const KernelContext& ctx, const Tensor& t) {
  DUET_ASSIGN_OR_RETURN(Tensor wide, Tensor::TryEmpty(kFloat32, t.shape(), t.device()));
  const Half* src = t.data<Half>();
  float* dst = wide.mutable_data<float>();
  ParallelElements(ctx, ElementCount(t.shape()), 2,
                   [&](int64_t i, int64_t end) { ToFloat32(src + i, dst + i, end - i); });
  return wide;
}

// Binary op on 16-bit floats: widen both inputs, run the float32 kernel, round the result (bool
// results, from comparisons, are written directly).
template <typename Half, typename Op>
absl::Status HalfBinaryKernel(KernelContext& ctx) {
  using R = std::invoke_result_t<Op, float, float>;
  DUET_ASSIGN_OR_RETURN(const Tensor x, WidenToFloat32<Half>(ctx, ctx.input(0)));
  DUET_ASSIGN_OR_RETURN(const Tensor y, WidenToFloat32<Half>(ctx, ctx.input(1)));
  Tensor& z = ctx.output(0);
  if constexpr (std::is_same_v<R, bool>) {
    RunBinary<float, bool>(ctx, x, y, z, Op{});
  } else {
    DUET_ASSIGN_OR_RETURN(Tensor wide, Tensor::TryEmpty(kFloat32, z.shape(), z.device()));
    RunBinary<float, float>(ctx, x, y, wide, Op{});
    const float* src = wide.data<float>();
    Half* dst = z.mutable_data<Half>();
    ParallelElements(ctx, ElementCount(z.shape()), 2,
                     [&](int64_t i, int64_t end) { FromFloat32(src + i, dst + i, end - i); });
  }
  return absl::OkStatus();
}

// Unary op on 16-bit floats, staged through float32 in stack blocks (no allocation).
template <typename Half, typename Op>
absl::Status HalfUnaryKernel(KernelContext& ctx) {
  const Half* x = ctx.input(0).data<Half>();
  Half* z = ctx.output(0).mutable_data<Half>();
  ParallelElements(ctx, ElementCount(ctx.input(0).shape()), CostOf<Op>() + 2,
                   [&](int64_t begin, int64_t end) {
                     constexpr int64_t kBlock = 512;
                     float in[kBlock], out[kBlock];
                     for (int64_t i = begin; i < end; i += kBlock) {
                       const int64_t len = std::min(kBlock, end - i);
                       ToFloat32(x + i, in, len);
                       MapUnary(in, out, len, Op{});
                       FromFloat32(out, z + i, len);
                     }
                   });
  return absl::OkStatus();
}

// Registers the float16 and bfloat16 kernels of a binary op.
template <typename Op>
void RegisterHalfBinaryKernels(absl::string_view op_name) {
  RegisterKernel(op_name, DeviceType::kCpu, {kFloat16}, KernelDef{&HalfBinaryKernel<float16, Op>});
  RegisterKernel(op_name, DeviceType::kCpu, {kBFloat16},
                 KernelDef{&HalfBinaryKernel<bfloat16, Op>});
}

// Registers the float16 and bfloat16 kernels of a unary op.
template <typename Op>
void RegisterHalfUnaryKernels(absl::string_view op_name) {
  RegisterKernel(op_name, DeviceType::kCpu, {kFloat16}, KernelDef{&HalfUnaryKernel<float16, Op>});
  RegisterKernel(op_name, DeviceType::kCpu, {kBFloat16}, KernelDef{&HalfUnaryKernel<bfloat16, Op>});
}

}  // namespace duet
