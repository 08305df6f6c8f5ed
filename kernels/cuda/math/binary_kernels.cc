// CUDA kernels of the binary arithmetic ops, the comparisons and the logical ops, with the CPU
// kernels' semantics (kernels/cpu/math/binary_kernels.cc, comparison_kernels.cc): NumPy
// broadcasting, integer arithmetic that wraps, float16/bfloat16 computed in float32. Integer Div
// and FloorMod reject a zero divisor and integer Pow a negative exponent, as on the CPU; finding
// one means reading a flag on the host, so those (integer-only) ops wait for the stream.
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/math/elementwise_launchers.h"
#include "kernels/cuda/math/elementwise_layout.h"
#include "kernels/kernel_registry.h"

namespace duet::cuda {
namespace {

// z = op(x, y) on the device's stream.
absl::Status RunBinary(KernelContext& ctx, BinaryOp op) {
  DUET_ASSIGN_OR_RETURN(DeviceContext * device, CurrentContext(ctx.device()));
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  Tensor& z = ctx.output(0);
  if (z.num_elements() == 0) return absl::OkStatus();
  const Tensor* inputs[] = {&x, &y};
  DUET_ASSIGN_OR_RETURN(const ElementwiseLayout layout, MakeElementwiseLayout(inputs, z));
  return CudaStatus(LaunchBinary(op, ElementTypeOf(x.dtype()), x.raw_data(), y.raw_data(),
                                 z.raw_data(), layout, device->stream()),
                    "LaunchBinary");
}

template <BinaryOp kOp>
absl::Status BinaryKernel(KernelContext& ctx) {
  return RunBinary(ctx, kOp);
}

// The flat index of y's first element matching `pred`, or -1; waits for the stream (the answer is
// needed on the host).
absl::StatusOr<int64_t> FindFirst(const KernelContext& ctx, const Tensor& y, IntPredicate pred) {
  DUET_ASSIGN_OR_RETURN(DeviceContext * device, CurrentContext(ctx.device()));
  DUET_ASSIGN_OR_RETURN(Tensor first, Tensor::TryEmpty(kInt64, Shape{}, ctx.device()));
  auto* first_ptr = static_cast<unsigned long long*>(first.raw_data());
  // All ones: larger than any index, so "none found" survives atomicMin.
  DUET_CUDA_RETURN_IF_ERROR(
      cudaMemsetAsync(first_ptr, 0xff, sizeof(unsigned long long), device->stream()));
  DUET_CUDA_RETURN_IF_ERROR(LaunchFindFirst(pred, ElementTypeOf(y.dtype()), y.raw_data(),
                                            y.num_elements(), first_ptr, device->stream()));
  unsigned long long host = 0;
  DUET_RETURN_IF_ERROR(CopyBytes(&host, Device::cpu(), first_ptr, ctx.device(), sizeof(host)));
  return host >= static_cast<unsigned long long>(y.num_elements()) ? -1
                                                                   : static_cast<int64_t>(host);
}

// Integer x / y and x % y: InvalidArgument when y holds a zero that reaches the output.
template <BinaryOp kOp>
absl::Status IntDivisionKernel(KernelContext& ctx) {
  if (ctx.output(0).num_elements() > 0) {
    DUET_ASSIGN_OR_RETURN(const int64_t i, FindFirst(ctx, ctx.input(1), IntPredicate::kZero));
    if (i >= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("integer division by zero (y has 0 at flat index ", i, ")"));
    }
  }
  return RunBinary(ctx, kOp);
}

// Integer x ** y: InvalidArgument for a negative exponent, as TensorFlow does.
template <typename T>
absl::Status IntPowKernel(KernelContext& ctx) {
  const Tensor& y = ctx.input(1);
  if (ctx.output(0).num_elements() > 0) {
    DUET_ASSIGN_OR_RETURN(const int64_t i, FindFirst(ctx, y, IntPredicate::kNegative));
    if (i >= 0) {
      T value = 0;
      DUET_RETURN_IF_ERROR(
          CopyBytes(&value, Device::cpu(), y.data<T>() + i, ctx.device(), sizeof(T)));
      return absl::InvalidArgumentError(
          absl::StrCat("integers to negative integer powers are not allowed (y has ", value,
                       " at flat index ", i, ")"));
    }
  }
  return RunBinary(ctx, BinaryOp::kPow);
}

// Equal / NotEqual of shapes that do not broadcast, with incompatible_shape_error=false: the
// shape function made the output a scalar, and the answer is "not equal" (see the CPU kernel).
template <BinaryOp kOp, bool kIncompatibleValue>
absl::Status EqualityKernel(KernelContext& ctx) {
  Tensor& z = ctx.output(0);
  if (z.rank() == 0 && (ctx.input(0).num_elements() != 1 || ctx.input(1).num_elements() != 1)) {
    DUET_ASSIGN_OR_RETURN(DeviceContext * device, CurrentContext(ctx.device()));
    DUET_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(z.raw_data(), kIncompatibleValue ? 1 : 0, 1, device->stream()));
    return absl::OkStatus();
  }
  return RunBinary(ctx, kOp);
}

constexpr DType kFloatTypes[] = {kFloat32, kFloat64, kFloat16, kBFloat16};

template <BinaryOp kOp>
void RegisterAllArithmetic(absl::string_view name) {
  RegisterKernel(name, DeviceType::kCuda, {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64},
                 KernelDef{&BinaryKernel<kOp>});
}

const bool registered = [] {
  RegisterAllArithmetic<BinaryOp::kAdd>("AddV2");
  RegisterAllArithmetic<BinaryOp::kSub>("Sub");
  RegisterAllArithmetic<BinaryOp::kMul>("Mul");
  RegisterAllArithmetic<BinaryOp::kMaximum>("Maximum");
  RegisterAllArithmetic<BinaryOp::kMinimum>("Minimum");
  RegisterAllArithmetic<BinaryOp::kSquaredDifference>("SquaredDifference");
  for (DType t : kFloatTypes) {
    RegisterKernel("RealDiv", DeviceType::kCuda, {t}, KernelDef{&BinaryKernel<BinaryOp::kDiv>});
    RegisterKernel("Div", DeviceType::kCuda, {t}, KernelDef{&BinaryKernel<BinaryOp::kDiv>});
    RegisterKernel("FloorMod", DeviceType::kCuda, {t},
                   KernelDef{&BinaryKernel<BinaryOp::kFloorMod>});
    RegisterKernel("Pow", DeviceType::kCuda, {t}, KernelDef{&BinaryKernel<BinaryOp::kPow>});
    RegisterKernel("FloorDiv", DeviceType::kCuda, {t},
                   KernelDef{&BinaryKernel<BinaryOp::kFloorDiv>});
    RegisterKernel("TruncateDiv", DeviceType::kCuda, {t},
                   KernelDef{&BinaryKernel<BinaryOp::kTruncateDiv>});
    RegisterKernel("Atan2", DeviceType::kCuda, {t}, KernelDef{&BinaryKernel<BinaryOp::kAtan2>});
  }
  RegisterKernel("FloorDiv", DeviceType::kCuda, {kInt32, kInt64},
                 KernelDef{&IntDivisionKernel<BinaryOp::kFloorDiv>});
  RegisterKernel("TruncateDiv", DeviceType::kCuda, {kInt32, kInt64},
                 KernelDef{&IntDivisionKernel<BinaryOp::kTruncateDiv>});
  RegisterKernel("Div", DeviceType::kCuda, {kInt32, kInt64},
                 KernelDef{&IntDivisionKernel<BinaryOp::kDiv>});
  RegisterKernel("FloorMod", DeviceType::kCuda, {kInt32, kInt64},
                 KernelDef{&IntDivisionKernel<BinaryOp::kFloorMod>});
  RegisterKernel("Pow", DeviceType::kCuda, {kInt32}, KernelDef{&IntPowKernel<int32_t>});
  RegisterKernel("Pow", DeviceType::kCuda, {kInt64}, KernelDef{&IntPowKernel<int64_t>});

  const std::initializer_list<DType> kEqualityTypes = {kFloat32, kFloat64, kFloat16, kBFloat16,
                                                       kInt32,   kInt64,   kBool};
  RegisterKernel("Equal", DeviceType::kCuda, kEqualityTypes,
                 KernelDef{&EqualityKernel<BinaryOp::kEqual, false>});
  RegisterKernel("NotEqual", DeviceType::kCuda, kEqualityTypes,
                 KernelDef{&EqualityKernel<BinaryOp::kNotEqual, true>});
  RegisterAllArithmetic<BinaryOp::kLess>("Less");
  RegisterAllArithmetic<BinaryOp::kLessEqual>("LessEqual");
  RegisterAllArithmetic<BinaryOp::kGreater>("Greater");
  RegisterAllArithmetic<BinaryOp::kGreaterEqual>("GreaterEqual");
  // The logical ops have fixed bool inputs and no type attr, so they dispatch as float32.
  RegisterKernel("LogicalAnd", DeviceType::kCuda, {kFloat32},
                 KernelDef{&BinaryKernel<BinaryOp::kLogicalAnd>});
  RegisterKernel("LogicalOr", DeviceType::kCuda, {kFloat32},
                 KernelDef{&BinaryKernel<BinaryOp::kLogicalOr>});
  return true;
}();

}  // namespace
}  // namespace duet::cuda
