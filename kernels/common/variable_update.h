// The tensor an update of a variable writes, under Note [Variables copy on write]
// (kernels/cpu/state/variable_kernels.cc): shared by the kernels that update variables
// (AssignAdd/AssignSub, ResourceApplyGradientDescent, _ResourceApplyMatMulGradientDescent).
#pragma once

#include "absl/status/statusor.h"
#include "core/resource.h"

namespace duet {

// What an update of `variable` writes, the caller holding variable.mu: the variable's own value
// when the variable is its sole holder (the update may then work in place), else a fresh tensor
// of its dtype and shape, holding a copy of the value when `copy_value` (for updates that only
// accumulate into their output). FailedPrecondition when the variable has no value yet.
absl::StatusOr<Tensor> WritableValue(const VariableResource& variable, bool copy_value);

}  // namespace duet
