#include "eager/variable.h"

#include "core/resource.h"
#include "eager/device_scope.h"
#include "eager/eager_context.h"
#include "ops/array/array_ops.h"
#include "ops/composite/indexing.h"
#include "ops/state/variable_ops.h"

namespace duet {
namespace {

thread_local int64_t variables_created = 0;

VariableResource& State(const Tensor& handle) {
  VariableResource* variable = VariableOf(handle);
  if (variable == nullptr) {
    throw Error(absl::FailedPreconditionError("use of a default-constructed (empty) Variable"));
  }
  return *variable;
}

}  // namespace

Variable::Variable(const Tensor& initial_value, const std::string& name, bool trainable,
                   OpSite site) {
  if (!initial_value.defined()) {
    throw Error(
        absl::InvalidArgumentError("Variable '" + name + "' needs a defined initial value"));
  }
  if (!initial_value.has_value()) {
    throw Error(absl::InvalidArgumentError(
        "Variable '" + name +
        "': the initial value is a symbolic graph tensor; variables start from eager values"));
  }
  // The state is made eagerly even inside a GraphScope (tf.function lifts variable creation out
  // of its graph the same way): a graph then captures the handle.
  // The state lives on the innermost DeviceScope's device, else where the initial value is.
  ExecutionContext::Scope eager(&EagerContext::Get());
  DeviceScope on(DeviceScope::Innermost().value_or(initial_value.device()));
  handle_ = var_handle_op(initial_value.dtype(), initial_value.shape(), name, site);
  State(handle_).trainable = trainable;
  assign_variable_op(handle_, initial_value, site);
  ++variables_created;
}

namespace variable_internal {
int64_t VariablesCreated() { return variables_created; }
}  // namespace variable_internal

const std::string& Variable::name() const { return State(handle_).name; }
DType Variable::dtype() const { return State(handle_).dtype; }
const Shape& Variable::shape() const { return State(handle_).shape; }
bool Variable::trainable() const { return State(handle_).trainable; }

Tensor Variable::value(OpSite site) const { return read_variable_op(handle_, dtype(), site); }

const Variable& Variable::assign(const Tensor& value, OpSite site) const {
  assign_variable_op(handle_, value, site);
  return *this;
}

const Variable& Variable::assign_add(const Tensor& delta, OpSite site) const {
  assign_add_variable_op(handle_, delta, site);
  return *this;
}

const Variable& Variable::index_put(std::initializer_list<TensorIndex> indices, const Tensor& value,
                                    OpSite site) const {
  const IndexOperands operands = StridedSliceOperands(std::vector<TensorIndex>(indices), site);
  resource_strided_slice_assign(handle_, operands.begin, operands.end, operands.strides, value,
                                operands.masks, site);
  return *this;
}

const Variable& Variable::assign_sub(const Tensor& delta, OpSite site) const {
  assign_sub_variable_op(handle_, delta, site);
  return *this;
}

}  // namespace duet
