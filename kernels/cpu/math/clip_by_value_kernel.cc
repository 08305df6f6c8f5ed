// ClipByValue on the CPU: max(min(t, hi), lo), TensorFlow's order (lo wins where hi < lo), with
// Maximum's and Minimum's NaN propagation (functors.h), each bound a scalar (stride 0) or of t's
// shape. float16 and bfloat16 are clipped in float32 and rounded back, which is exact (the result
// is one of the inputs).
#include <cstdint>

#include "kernels/cpu/math/elementwise.h"
#include "kernels/cpu/math/functors.h"
#include "kernels/cpu/math/half_kernels.h"

namespace duet {
namespace {

#pragma GCC push_options
#pragma GCC optimize("vect-cost-model=dynamic")
template <typename T>
void ClipRange(const T* __restrict t, const T* __restrict lo, int64_t lo_step,
               const T* __restrict hi, int64_t hi_step, T* __restrict z, int64_t begin,
               int64_t end) {
  for (int64_t i = begin; i < end; ++i) {
    z[i] = MaximumFn{}(MinimumFn{}(t[i], hi[i * hi_step]), lo[i * lo_step]);
  }
}
#pragma GCC pop_options

template <typename T>
void Clip(const KernelContext& ctx, const Tensor& t, const Tensor& lo, const Tensor& hi,
          Tensor& z) {
  const int64_t n = ElementCount(t.shape());
  const int64_t lo_step = ElementCount(lo.shape()) == 1 ? 0 : 1;
  const int64_t hi_step = ElementCount(hi.shape()) == 1 ? 0 : 1;
  const T* a = t.data<T>();
  const T* b = lo.data<T>();
  const T* c = hi.data<T>();
  T* out = z.mutable_data<T>();
  ParallelElements(ctx, n, 2, [&](int64_t begin, int64_t end) {
    ClipRange(a, b, lo_step, c, hi_step, out, begin, end);
  });
}

template <typename T>
absl::Status ClipByValueKernel(KernelContext& ctx) {
  Clip<T>(ctx, ctx.input(0), ctx.input(1), ctx.input(2), ctx.output(0));
  return absl::OkStatus();
}

template <typename Half>
absl::Status HalfClipByValueKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const Tensor t, WidenToFloat32<Half>(ctx, ctx.input(0)));
  DUET_ASSIGN_OR_RETURN(const Tensor lo, WidenToFloat32<Half>(ctx, ctx.input(1)));
  DUET_ASSIGN_OR_RETURN(const Tensor hi, WidenToFloat32<Half>(ctx, ctx.input(2)));
  Tensor& z = ctx.output(0);
  DUET_ASSIGN_OR_RETURN(Tensor wide, Tensor::TryEmpty(kFloat32, z.shape(), z.device()));
  Clip<float>(ctx, t, lo, hi, wide);
  const float* src = wide.data<float>();
  Half* dst = z.mutable_data<Half>();
  ParallelElements(ctx, ElementCount(z.shape()), 2,
                   [&](int64_t i, int64_t end) { FromFloat32(src + i, dst + i, end - i); });
  return absl::OkStatus();
}

const bool registered = [] {
  RegisterKernel("ClipByValue", DeviceType::kCpu, {kFloat32}, KernelDef{&ClipByValueKernel<float>});
  RegisterKernel("ClipByValue", DeviceType::kCpu, {kFloat64},
                 KernelDef{&ClipByValueKernel<double>});
  RegisterKernel("ClipByValue", DeviceType::kCpu, {kInt32}, KernelDef{&ClipByValueKernel<int32_t>});
  RegisterKernel("ClipByValue", DeviceType::kCpu, {kInt64}, KernelDef{&ClipByValueKernel<int64_t>});
  RegisterKernel("ClipByValue", DeviceType::kCpu, {kFloat16},
                 KernelDef{&HalfClipByValueKernel<float16>});
  RegisterKernel("ClipByValue", DeviceType::kCpu, {kBFloat16},
                 KernelDef{&HalfClipByValueKernel<bfloat16>});
  return true;
}();

}  // namespace
}  // namespace duet
