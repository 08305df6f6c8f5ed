// CPU kernels of the binary arithmetic ops: AddV2, Sub, Mul, RealDiv, Div, FloorDiv, TruncateDiv,
// FloorMod, Pow, Maximum, Minimum, SquaredDifference, Atan2 and ReluGrad (float16/bfloat16 compute
// in float32, half_kernels.h). Integer division, modulo and power check their right operand first,
// so a zero divisor or a negative integer exponent is an error instead of a trap.
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/math/elementwise.h"
#include "kernels/cpu/math/functors.h"
#include "kernels/cpu/math/half_kernels.h"

namespace duet {
namespace {

// Index of the first element of y for which bad(y[i]) holds, or -1.
template <typename T, typename Pred>
int64_t FindFirst(const Tensor& y, Pred bad) {
  const T* p = y.data<T>();
  const int64_t n = y.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    if (bad(p[i])) return i;
  }
  return -1;
}

// Integer x / y and x % y: InvalidArgument when y holds a zero that reaches the output.
template <typename T, typename Op>
absl::Status IntDivisionKernel(KernelContext& ctx) {
  if (ctx.output(0).num_elements() > 0) {
    const int64_t i = FindFirst<T>(ctx.input(1), [](T v) { return v == 0; });
    if (i >= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("integer division by zero (y has 0 at flat index ", i, ")"));
    }
  }
  return BinaryKernel<T, Op>(ctx);
}

// Integer x ** y: InvalidArgument for a negative exponent, as TensorFlow does.
template <typename T>
absl::Status IntPowKernel(KernelContext& ctx) {
  if (ctx.output(0).num_elements() > 0) {
    const int64_t i = FindFirst<T>(ctx.input(1), [](T v) { return v < 0; });
    if (i >= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("integers to negative integer powers are not allowed (y has ",
                       ctx.input(1).data<T>()[i], " at flat index ", i, ")"));
    }
  }
  return BinaryKernel<T, PowFn>(ctx);
}

void RegisterIntKernel(absl::string_view op, DType dtype, KernelFn fn) {
  RegisterKernel(op, DeviceType::kCpu, {dtype}, KernelDef{fn});
}

const bool registered = [] {
  RegisterBinaryKernels<AddFn, float, double, int32_t, int64_t>("AddV2");
  RegisterBinaryKernels<SubFn, float, double, int32_t, int64_t>("Sub");
  RegisterBinaryKernels<MulFn, float, double, int32_t, int64_t>("Mul");
  RegisterBinaryKernels<DivFn, float, double>("RealDiv");
  RegisterBinaryKernels<DivFn, float, double>("Div");
  RegisterIntKernel("Div", kInt32, &IntDivisionKernel<int32_t, DivFn>);
  RegisterIntKernel("Div", kInt64, &IntDivisionKernel<int64_t, DivFn>);
  RegisterBinaryKernels<FloorDivFn, float, double>("FloorDiv");
  RegisterIntKernel("FloorDiv", kInt32, &IntDivisionKernel<int32_t, FloorDivFn>);
  RegisterIntKernel("FloorDiv", kInt64, &IntDivisionKernel<int64_t, FloorDivFn>);
  RegisterBinaryKernels<TruncateDivFn, float, double>("TruncateDiv");
  RegisterIntKernel("TruncateDiv", kInt32, &IntDivisionKernel<int32_t, TruncateDivFn>);
  RegisterIntKernel("TruncateDiv", kInt64, &IntDivisionKernel<int64_t, TruncateDivFn>);
  RegisterBinaryKernels<SquaredDifferenceFn, float, double, int32_t, int64_t>("SquaredDifference");
  RegisterBinaryKernels<Atan2Fn, float, double>("Atan2");
  RegisterBinaryKernels<FloorModFn, float, double>("FloorMod");
  RegisterIntKernel("FloorMod", kInt32, &IntDivisionKernel<int32_t, FloorModFn>);
  RegisterIntKernel("FloorMod", kInt64, &IntDivisionKernel<int64_t, FloorModFn>);
  RegisterBinaryKernels<PowFn, float, double>("Pow");
  RegisterIntKernel("Pow", kInt32, &IntPowKernel<int32_t>);
  RegisterIntKernel("Pow", kInt64, &IntPowKernel<int64_t>);
  RegisterBinaryKernels<MaximumFn, float, double, int32_t, int64_t>("Maximum");
  RegisterBinaryKernels<MinimumFn, float, double, int32_t, int64_t>("Minimum");
  RegisterBinaryKernels<ReluGradFn, float, double, int32_t, int64_t>("ReluGrad");
  RegisterHalfBinaryKernels<AddFn>("AddV2");
  RegisterHalfBinaryKernels<SubFn>("Sub");
  RegisterHalfBinaryKernels<MulFn>("Mul");
  RegisterHalfBinaryKernels<DivFn>("RealDiv");
  RegisterHalfBinaryKernels<DivFn>("Div");
  RegisterHalfBinaryKernels<FloorModFn>("FloorMod");
  RegisterHalfBinaryKernels<FloorDivFn>("FloorDiv");
  RegisterHalfBinaryKernels<TruncateDivFn>("TruncateDiv");
  RegisterHalfBinaryKernels<SquaredDifferenceFn>("SquaredDifference");
  RegisterHalfBinaryKernels<Atan2Fn>("Atan2");
  RegisterHalfBinaryKernels<PowFn>("Pow");
  RegisterHalfBinaryKernels<MaximumFn>("Maximum");
  RegisterHalfBinaryKernels<MinimumFn>("Minimum");
  RegisterHalfBinaryKernels<ReluGradFn>("ReluGrad");
  return true;
}();

}  // namespace
}  // namespace duet
