#include "kernels/common/variable_update.h"

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace duet {

absl::Status CheckValueDevice(const VariableResource& variable, Device device) {
  const Tensor& value = variable.value;
  if (!value.defined() || value.device() == device) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("variable '", variable.name,
                                                 "' holds its value on ", value.device().str(),
                                                 ", but the kernel runs on ", device.str()));
}

absl::Status CheckUpdateMatchesValue(const VariableResource& variable, absl::string_view what,
                                     DType dtype, const Shape& shape) {
  if (!variable.value.defined()) return absl::OkStatus();
  return CheckMatchesVariable(variable, variable.value.shape(), what, dtype, shape);
}

absl::StatusOr<Tensor> WritableValue(const VariableResource& variable, Device device,
                                     bool copy_value) {
  const Tensor& value = variable.value;
  if (!value.defined()) {
    return absl::FailedPreconditionError(
        absl::StrCat("variable '", variable.name, "' is updated before it was assigned a value"));
  }
  DUET_RETURN_IF_ERROR(CheckValueDevice(variable, device));
  // Owning its memory (not a view of another tensor's) and held by nobody else.
  if (value.impl().use_count() == 1 && value.impl()->allocator != nullptr) return value;
  DUET_ASSIGN_OR_RETURN(Tensor fresh,
                        Tensor::TryEmpty(value.dtype(), value.shape(), value.device()));
  if (copy_value) {
    DUET_RETURN_IF_ERROR(
        fresh.impl()->allocator->CopyWithin(fresh.raw_data(), value.raw_data(), fresh.nbytes()));
  }
  return fresh;
}

LockedUpdate::~LockedUpdate() {
  // Unlock in reverse order of locking; locks_ holds them in address order.
  for (int k = size_ - 1; k >= 0; --k) {
    if (locks_[k].owns_lock()) locks_[k].unlock();
  }
}

absl::Status LockedUpdate::Resolve(const KernelContext& ctx, int num_variables) {
  const std::vector<ArgDef>& args = ctx.call().op->inputs;
  if (num_variables > kMaxVariables) return absl::InternalError("too many variables in an update");
  for (int k = 0; k < num_variables; ++k) {
    VariableResource* variable = VariableOf(ctx.input(k));
    if (variable == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("input ", args[k].name, " is not a variable handle"));
    }
    for (int j = 0; j < k; ++j) {
      if (variables_[j] == variable) {
        return absl::InvalidArgumentError(absl::StrCat(
            args[j].name, " and ", args[k].name, " are the same variable '", variable->name, "'"));
      }
    }
    variables_[k] = variable;
  }
  size_ = num_variables;
  return absl::OkStatus();
}

absl::Status LockedUpdate::CheckValues(const KernelContext& ctx, int grad_index) const {
  const VariableResource& var = *variables_[0];
  if (!var.value.defined()) {
    return absl::FailedPreconditionError(
        absl::StrCat("variable '", var.name, "' is updated before it was assigned a value"));
  }
  DUET_RETURN_IF_ERROR(CheckValueDevice(var, ctx.device()));  // the slots' follow
  const Shape& shape = var.value.shape();
  const std::vector<ArgDef>& args = ctx.call().op->inputs;
  for (int k = 1; k < size_; ++k) {
    const VariableResource& slot = *variables_[k];
    if (!slot.value.defined()) {
      return absl::FailedPreconditionError(
          absl::StrCat("slot ", args[k].name, " (variable '", slot.name, "') has no value yet"));
    }
    const std::string what = absl::StrCat("slot ", args[k].name, " (variable '", slot.name, "')");
    DUET_RETURN_IF_ERROR(
        CheckMatchesVariable(var, shape, what, slot.value.dtype(), slot.value.shape()));
    if (!(slot.value.device() == var.value.device())) {
      return absl::InvalidArgumentError(absl::StrCat(what, " is on ", slot.value.device().str(),
                                                     " but variable '", var.name, "' is on ",
                                                     var.value.device().str()));
    }
  }
  const Tensor& grad = ctx.input(grad_index);
  return CheckMatchesVariable(var, shape, "grad", grad.dtype(), grad.shape());
}

absl::Status LockedUpdate::Begin(const KernelContext& ctx, int num_variables, int grad_index) {
  DUET_RETURN_IF_ERROR(Resolve(ctx, num_variables));
  // Lock in address order (an insertion sort: std::sort on at most four elements trips GCC 12's
  // -Warray-bounds).
  std::array<std::mutex*, kMaxVariables> order{};
  for (int k = 0; k < size_; ++k) {
    std::mutex* mu = &variables_[k]->mu;
    int j = k;
    for (; j > 0 && std::less<std::mutex*>()(mu, order[j - 1]); --j) order[j] = order[j - 1];
    order[j] = mu;
  }
  for (int k = 0; k < size_; ++k) locks_[k] = std::unique_lock<std::mutex>(*order[k]);
  DUET_RETURN_IF_ERROR(CheckValues(ctx, grad_index));
  for (int k = 0; k < size_; ++k) {
    DUET_ASSIGN_OR_RETURN(new_values_[k],
                          WritableValue(*variables_[k], ctx.device(), /*copy_value=*/false));
  }
  return absl::OkStatus();
}

absl::Status CheckScalarInput(const KernelContext& ctx, int i) {
  const Shape& shape = ctx.input(i).shape();
  if (shape.rank() == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(ctx.call().op->inputs[i].name, " must be a scalar, got shape ", shape.str()));
}

void LockedUpdate::Commit() {
  for (int k = 0; k < size_; ++k) variables_[k]->value = std::move(new_values_[k]);
}

}  // namespace duet
