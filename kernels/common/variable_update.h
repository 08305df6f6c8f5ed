// The tensor an update of a variable writes, under Note [Variables copy on write]
// (kernels/cpu/state/variable_kernels.cc): shared by the kernels that update variables
// (AssignAdd/AssignSub, ResourceApplyGradientDescent, _ResourceApplyMatMulGradientDescent, the
// fused optimizer updates of ops/state/training_ops.h).
#pragma once

#include <array>
#include <mutex>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/resource.h"
#include "kernels/kernel_registry.h"

namespace duet {

// OK when `variable` has no value or holds it on `device`, the device of the kernel reading it
// (the caller holding variable.mu); else InvalidArgument naming the variable and both devices.
// The launch check sees the handles only (Note [Device checks] in kernels/kernel_registry.h), so
// a kernel that reads or writes a value behind a handle checks it here first.
absl::Status CheckValueDevice(const VariableResource& variable, Device device);

// Note [Updates match the value]
// CheckAssignable compares an update's operand with the variable's declared shape, which may be
// partial (a VarHandleOp's shape attr, an imported graph's variable), so a [2, 4] value can meet a
// [3, 4] delta that passed it; an update loop sized by its operand would then run past the value.
// So the kernels that update a value by an operand of their own also check it against the value
// itself, under the variable's lock, as TensorFlow's "shapes must be equal" does. The fused
// optimizer updates do this in LockedUpdate::Begin.
//
// OK when `variable` has no value (WritableValue reports that) or its value has `dtype` and
// `shape`, the update's operand `what`'s; else InvalidArgument naming both (the caller holding
// variable.mu).
absl::Status CheckUpdateMatchesValue(const VariableResource& variable, absl::string_view what,
                                     DType dtype, const Shape& shape);

// What an update of `variable` by a kernel on `device` writes, the caller holding variable.mu:
// the variable's own value when the variable is its sole holder (the update may then work in
// place), else a fresh tensor of its dtype and shape, holding a copy of the value when
// `copy_value` (for updates that only accumulate into their output). FailedPrecondition when the
// variable has no value yet; CheckValueDevice's error when the value is on another device.
absl::StatusOr<Tensor> WritableValue(const VariableResource& variable, Device device,
                                     bool copy_value);

// The variables one fused update writes (var, then its slots: inputs [0, size()) of its op),
// locked for the update and each with the tensor it writes. Begin() locks them in address
// order, so updates that share variables never deadlock whatever order their inputs name them
// in. Unlocks on destruction; Commit() makes the written tensors the variables' values.
class LockedUpdate {
 public:
  static constexpr int kMaxVariables = 4;  // ResourceApplyAdamWithAmsgrad's var, m, v, vhat

  LockedUpdate() = default;
  LockedUpdate(const LockedUpdate&) = delete;
  LockedUpdate& operator=(const LockedUpdate&) = delete;
  ~LockedUpdate();

  // Takes inputs [0, num_variables) of ctx as distinct variable handles, locks them, checks that
  // every slot's value and input `grad_index` have var's dtype and shape (errors name the
  // variables and both shapes), and takes each one's WritableValue (copy_value false: the update
  // reads old_value and writes new_value, which may be the same tensor).
  absl::Status Begin(const KernelContext& ctx, int num_variables, int grad_index);

  int size() const { return size_; }
  // Variable k's value before the update, and the tensor the update writes (Note [Variables copy
  // on write]: the same tensor when the variable is its value's sole holder).
  const Tensor& old_value(int k) const { return variables_[k]->value; }
  const Tensor& new_value(int k) const { return new_values_[k]; }
  void Commit();

 private:
  absl::Status Resolve(const KernelContext& ctx, int num_variables);
  absl::Status CheckValues(const KernelContext& ctx, int grad_index) const;

  int size_ = 0;
  std::array<VariableResource*, kMaxVariables> variables_{};
  std::array<std::unique_lock<std::mutex>, kMaxVariables> locks_;
  std::array<Tensor, kMaxVariables> new_values_;
};

// OK when input i of ctx (an update's hyper-parameter) is a scalar; else InvalidArgument naming
// the input and its shape. Shape functions check this too, but a graph may know the shape only
// when it runs.
absl::Status CheckScalarInput(const KernelContext& ctx, int i);

}  // namespace duet
