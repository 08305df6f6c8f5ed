// _ResourceApplyMatMulGradientDescent on the CPU: var -= alpha * op(a) x op(b), the product
// accumulated straight into the variable's buffer (MatMulSubtractScaled), so the gradient the
// unfused graph stored and then subtracted is never materialized.
#include <mutex>

#include "core/resource.h"
#include "kernels/common/matmul_geometry.h"
#include "kernels/common/variable_update.h"
#include "kernels/cpu/nn/matmul_runner.h"
#include "kernels/kernel_registry.h"
#include "ops/nn/nn_attrs.h"

namespace duet {
namespace {

// Note [Variables copy on write] (kernels/cpu/state/variable_kernels.cc): the product is added in
// place only when the variable is its value's only holder; otherwise into a copy of the value.
template <typename T>
absl::Status MatMulApplyGradientDescentKernel(KernelContext& ctx) {
  VariableResource* variable = VariableOf(ctx.input(0));
  if (variable == nullptr) return absl::InvalidArgumentError("input 0 is not a variable handle");
  const Tensor& a = ctx.input(2);
  const Tensor& b = ctx.input(3);
  const bool ta = ctx.attr(MatMulAttrs::kTransposeA), tb = ctx.attr(MatMulAttrs::kTransposeB);
  DUET_ASSIGN_OR_RETURN(const Shape product, MatrixProductShape(a.shape(), b.shape(), ta, tb));
  DUET_RETURN_IF_ERROR(CheckAssignable(*variable, a.dtype(), product));
  std::lock_guard<std::mutex> lock(variable->mu);
  DUET_RETURN_IF_ERROR(CheckUpdateMatchesValue(*variable, "the product", a.dtype(), product));
  DUET_ASSIGN_OR_RETURN(Tensor result, WritableValue(*variable, ctx.device(), /*copy_value=*/true));
  const T alpha = *ctx.input(1).data<T>();
  DUET_RETURN_IF_ERROR(MatMulSubtractScaled(a, b, ta, tb, alpha, result, ctx.may_overwrite_input(2),
                                            ctx.may_overwrite_input(3)));
  variable->value = std::move(result);
  return absl::OkStatus();
}

const bool kRegistered = [] {
  RegisterKernel("_ResourceApplyMatMulGradientDescent", DeviceType::kCpu, {kFloat32},
                 KernelDef{MatMulApplyGradientDescentKernel<float>});
  RegisterKernel("_ResourceApplyMatMulGradientDescent", DeviceType::kCpu, {kFloat64},
                 KernelDef{MatMulApplyGradientDescentKernel<double>});
  return true;
}();

}  // namespace
}  // namespace duet
