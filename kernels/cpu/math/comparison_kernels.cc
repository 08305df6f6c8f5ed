// CPU kernels of the comparisons (bool results) and the logical ops on bool tensors.
#include <cstdint>

#include "kernels/cpu/math/elementwise.h"
#include "kernels/cpu/math/functors.h"
#include "kernels/cpu/math/half_kernels.h"

namespace duet {
namespace {

// Equal / NotEqual with incompatible_shape_error=false and shapes that do not broadcast: the shape
// function made the output a scalar, and the answer is "not equal" (TensorFlow's behaviour).
// A scalar output from non-scalar inputs can only mean that case.
template <KernelFn kElementwise, bool kIncompatibleValue>
absl::Status EqualityKernel(KernelContext& ctx) {
  Tensor& z = ctx.output(0);
  if (z.rank() == 0 && (ctx.input(0).num_elements() != 1 || ctx.input(1).num_elements() != 1)) {
    *z.mutable_data<bool>() = kIncompatibleValue;
    return absl::OkStatus();
  }
  return kElementwise(ctx);
}

template <typename Op, bool kIncompatibleValue, typename... Ts>
void RegisterEqualityKernels(absl::string_view op_name) {
  (RegisterKernel(op_name, DeviceType::kCpu, {DTypeOf<Ts>()},
                  KernelDef{&EqualityKernel<&BinaryKernel<Ts, Op>, kIncompatibleValue>}),
   ...);
  RegisterKernel(op_name, DeviceType::kCpu, {kFloat16},
                 KernelDef{&EqualityKernel<&HalfBinaryKernel<float16, Op>, kIncompatibleValue>});
  RegisterKernel(op_name, DeviceType::kCpu, {kBFloat16},
                 KernelDef{&EqualityKernel<&HalfBinaryKernel<bfloat16, Op>, kIncompatibleValue>});
}

const bool registered = [] {
  RegisterEqualityKernels<EqualFn, false, float, double, int32_t, int64_t, bool, uint8_t>("Equal");
  RegisterEqualityKernels<NotEqualFn, true, float, double, int32_t, int64_t, bool, uint8_t>(
      "NotEqual");
  RegisterBinaryKernels<LessFn, float, double, int32_t, int64_t>("Less");
  RegisterBinaryKernels<LessEqualFn, float, double, int32_t, int64_t>("LessEqual");
  RegisterBinaryKernels<GreaterFn, float, double, int32_t, int64_t>("Greater");
  RegisterBinaryKernels<GreaterEqualFn, float, double, int32_t, int64_t>("GreaterEqual");
  RegisterHalfBinaryKernels<LessFn>("Less");
  RegisterHalfBinaryKernels<LessEqualFn>("LessEqual");
  RegisterHalfBinaryKernels<GreaterFn>("Greater");
  RegisterHalfBinaryKernels<GreaterEqualFn>("GreaterEqual");
  // The logical ops have fixed bool inputs and no type attr, so they dispatch as float32.
  RegisterKernel("LogicalAnd", DeviceType::kCpu, {kFloat32},
                 KernelDef{&BinaryKernel<bool, LogicalAndFn>});
  RegisterKernel("LogicalOr", DeviceType::kCpu, {kFloat32},
                 KernelDef{&BinaryKernel<bool, LogicalOrFn>});
  RegisterKernel("LogicalNot", DeviceType::kCpu, {kFloat32},
                 KernelDef{&UnaryKernel<bool, LogicalNotFn>});
  return true;
}();

}  // namespace
}  // namespace duet
