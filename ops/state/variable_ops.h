// Variable ops (TensorFlow's resource-variable ops): the graph-visible form of duet::Variable.
// Users normally go through Variable (eager/variable.h); these are the ops it runs.
#pragma once

#include <string>

#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet {

// A new variable of `dtype` and `shape` (unknown dims allowed), uninitialized: a kResource handle.
Tensor var_handle_op(DType dtype, const Shape& shape, const std::string& shared_name = "",
                     OpSite site = {});
// The variable's current value. Fails if it was never assigned.
Tensor read_variable_op(const Tensor& resource, DType dtype, OpSite site = {});
// variable = value / += value / -= value. The value's dtype and shape must be the variable's.
void assign_variable_op(const Tensor& resource, const Tensor& value, OpSite site = {});
void assign_add_variable_op(const Tensor& resource, const Tensor& value, OpSite site = {});
void assign_sub_variable_op(const Tensor& resource, const Tensor& value, OpSite site = {});
// variable -= alpha * delta in one pass (ResourceApplyGradientDescent: the SGD update); alpha is
// a scalar of the variable's dtype.
void resource_apply_gradient_descent(const Tensor& resource, const Tensor& alpha,
                                     const Tensor& delta, OpSite site = {});

}  // namespace duet
