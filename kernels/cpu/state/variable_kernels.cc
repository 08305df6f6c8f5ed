// Variable kernels. VarHandleOp makes the state, ReadVariableOp returns the current value tensor
// itself (no copy) and assignments swap or update it.
//
// Note [Variables copy on write]: values are ordinary immutable tensors, and a read hands out
// the variable's own tensor. AssignAdd/AssignSub therefore write in place only when the variable
// is the value's sole holder (no reader, tape or view still has it); otherwise they write a new
// tensor, so every tensor a user holds keeps the value it had when it was read.
#include <mutex>

#include "absl/strings/str_cat.h"
#include "core/resource.h"
#include "kernels/common/variable_update.h"
#include "kernels/kernel_registry.h"
#include "ops/op_registry.h"
#include "ops/state/state_attrs.h"

namespace duet {
namespace {

absl::Status VarHandleKernel(KernelContext& ctx) {
  auto variable = std::make_shared<VariableResource>();
  variable->name = ctx.attr(VarHandleAttrs::kSharedName);
  if (variable->name.empty()) variable->name = "Variable";
  variable->dtype = ctx.attr(VarHandleAttrs::kDtype);
  variable->shape = ctx.attr(VarHandleAttrs::kShape);
  ctx.output(0) = MakeResourceTensor(std::move(variable), ctx.device());
  return absl::OkStatus();
}

absl::StatusOr<VariableResource*> Variable(KernelContext& ctx) {
  VariableResource* variable = VariableOf(ctx.input(0));
  if (variable == nullptr) return absl::InvalidArgumentError("input 0 is not a variable handle");
  return variable;
}

absl::Status ReadVariableKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(VariableResource * variable, Variable(ctx));
  std::lock_guard<std::mutex> lock(variable->mu);
  if (!variable->value.defined()) {
    return absl::FailedPreconditionError(
        absl::StrCat("variable '", variable->name, "' is read before it was assigned a value"));
  }
  DUET_RETURN_IF_ERROR(CheckValueDevice(*variable, ctx.device()));
  ctx.output(0) = variable->value;
  return absl::OkStatus();
}

absl::Status AssignVariableKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(VariableResource * variable, Variable(ctx));
  const Tensor& value = ctx.input(1);
  DUET_RETURN_IF_ERROR(CheckAssignable(*variable, value.dtype(), value.shape()));
  std::lock_guard<std::mutex> lock(variable->mu);
  variable->value = value;
  return absl::OkStatus();
}

// Runs op `name`'s kernel for ctx's device on `inputs` into `out` (already allocated).
absl::Status RunDeviceKernel(const KernelContext& ctx, const char* name, TensorList inputs,
                             Tensor& out) {
  const OpDef* op = OpRegistry::Global().Find(name);
  if (op == nullptr) return absl::InternalError(absl::StrCat(name, " is not linked in"));
  OpCall call(op, std::move(inputs), OpSite());
  DUET_RETURN_IF_ERROR(BindAttrs(call));
  OutputList result = {out};
  return RunKernel(call, ctx.device(), result);
}

// variable = variable <op> delta, with the device's elementwise kernel of `kOpName` (AddV2 or
// Sub). Note [Variables copy on write]: elementwise, so in place is safe.
template <const char* kOpName>
absl::Status UpdateVariableKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(VariableResource * variable, Variable(ctx));
  const Tensor& delta = ctx.input(1);
  DUET_RETURN_IF_ERROR(CheckAssignable(*variable, delta.dtype(), delta.shape()));
  std::lock_guard<std::mutex> lock(variable->mu);
  DUET_RETURN_IF_ERROR(CheckUpdateMatchesValue(*variable, "delta", delta.dtype(), delta.shape()));
  DUET_ASSIGN_OR_RETURN(Tensor result,
                        WritableValue(*variable, ctx.device(), /*copy_value=*/false));
  DUET_RETURN_IF_ERROR(RunDeviceKernel(ctx, kOpName, {variable->value, delta}, result));
  variable->value = std::move(result);
  return absl::OkStatus();
}

// The update loops. GCC 12 at -O2 vectorizes loops of unknown trip count only under its dynamic
// cost model; the in-place form has its own loop so that no two __restrict pointers alias.
#pragma GCC push_options
#pragma GCC optimize("vect-cost-model=dynamic")

// out[i] -= alpha * d[i]
template <typename T>
void SubScaledInPlace(T* __restrict out, const T* __restrict d, T alpha, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] -= alpha * d[i];
}

// out[i] = in[i] - alpha * d[i]
template <typename T>
void SubScaled(const T* __restrict in, const T* __restrict d, T alpha, T* __restrict out,
               int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = in[i] - alpha * d[i];
}

#pragma GCC pop_options

// var -= alpha * delta. Note [Variables copy on write]: in place when the variable is the
// value's only holder, else into a fresh tensor.
template <typename T>
absl::Status ApplyGradientDescentKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(VariableResource * variable, Variable(ctx));
  const Tensor& delta = ctx.input(2);
  DUET_RETURN_IF_ERROR(CheckAssignable(*variable, delta.dtype(), delta.shape()));
  std::lock_guard<std::mutex> lock(variable->mu);
  DUET_RETURN_IF_ERROR(CheckUpdateMatchesValue(*variable, "delta", delta.dtype(), delta.shape()));
  DUET_ASSIGN_OR_RETURN(Tensor result,
                        WritableValue(*variable, ctx.device(), /*copy_value=*/false));
  const T alpha = *ctx.input(1).data<T>();
  const T* in = variable->value.data<T>();
  const T* d = delta.data<T>();
  T* out = result.mutable_data<T>();
  // ~1 memory pass per element: split only what is worth a thread hand-off.
  ctx.pool().ParallelFor(delta.num_elements(), 1 << 15, [=](int64_t begin, int64_t end) {
    if (in == out) {
      SubScaledInPlace(out + begin, d + begin, alpha, end - begin);
    } else {
      SubScaled(in + begin, d + begin, alpha, out + begin, end - begin);
    }
  });
  variable->value = std::move(result);
  return absl::OkStatus();
}

// var -= alpha * delta on devices without a dedicated kernel: the device's Mul, then its Sub in
// place when the variable is the value's only holder (Note [Variables copy on write]).
absl::Status ApplyGradientDescentByOpsKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(VariableResource * variable, Variable(ctx));
  const Tensor& delta = ctx.input(2);
  DUET_RETURN_IF_ERROR(CheckAssignable(*variable, delta.dtype(), delta.shape()));
  DUET_ASSIGN_OR_RETURN(Tensor step, Tensor::TryEmpty(delta.dtype(), delta.shape(), ctx.device()));
  DUET_RETURN_IF_ERROR(RunDeviceKernel(ctx, "Mul", {ctx.input(1), delta}, step));
  std::lock_guard<std::mutex> lock(variable->mu);
  DUET_RETURN_IF_ERROR(CheckUpdateMatchesValue(*variable, "delta", delta.dtype(), delta.shape()));
  DUET_ASSIGN_OR_RETURN(Tensor result,
                        WritableValue(*variable, ctx.device(), /*copy_value=*/false));
  DUET_RETURN_IF_ERROR(RunDeviceKernel(ctx, "Sub", {variable->value, step}, result));
  variable->value = std::move(result);
  return absl::OkStatus();
}

constexpr char kAddV2[] = "AddV2";
constexpr char kSub[] = "Sub";

const bool kRegistered = [] {
  // Handles and whole-value swaps are the same on every device, and the updates run the device's
  // own AddV2/Sub kernel, so these serve CUDA variables too.
  for (DeviceType device : {DeviceType::kCpu, DeviceType::kCuda}) {
    // These kernels move handles, not elements, so one serves every dtype.
    for (DType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool, kUInt8}) {
      RegisterKernel("VarHandleOp", device, {dtype}, KernelDef{VarHandleKernel, true});
      RegisterKernel("ReadVariableOp", device, {dtype}, KernelDef{ReadVariableKernel, true});
      RegisterKernel("AssignVariableOp", device, {dtype}, KernelDef{AssignVariableKernel});
    }
    RegisterKernel("AssignAddVariableOp", device,
                   {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64},
                   KernelDef{UpdateVariableKernel<kAddV2>});
    RegisterKernel("AssignSubVariableOp", device,
                   {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64},
                   KernelDef{UpdateVariableKernel<kSub>});
  }
  RegisterKernel("ResourceApplyGradientDescent", DeviceType::kCuda, {kFloat32, kFloat64},
                 KernelDef{ApplyGradientDescentByOpsKernel});
  RegisterKernel("ResourceApplyGradientDescent", DeviceType::kCpu, {kFloat32},
                 KernelDef{ApplyGradientDescentKernel<float>});
  RegisterKernel("ResourceApplyGradientDescent", DeviceType::kCpu, {kFloat64},
                 KernelDef{ApplyGradientDescentKernel<double>});
  return true;
}();

}  // namespace
}  // namespace duet
