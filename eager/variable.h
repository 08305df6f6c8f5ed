// Variable: a named handle to mutable state, usable wherever a Tensor is.
#pragma once

#include <cstdint>
#include <string>

#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet {

// A variable: copies are handles to the same state (like tf.Variable), which is freed with the
// last handle. Reading and assigning run TensorFlow's resource-variable ops (ReadVariableOp,
// AssignVariableOp, ...), so the same code works in graphs. Trainable variables read while a
// GradientTape records are watched automatically. Assignments must match the variable's dtype
// and shape and throw Error otherwise.
class Variable {
 public:
  Variable() = default;  // no state: defined() is false
  explicit Variable(const Tensor& initial_value, const std::string& name = "Variable",
                    bool trainable = true, OpSite site = {});

  bool defined() const { return handle_.defined(); }
  const std::string& name() const;
  DType dtype() const;
  const Shape& shape() const;
  bool trainable() const;

  // The current value (ReadVariableOp). The returned tensor keeps that value even if the variable
  // is assigned later.
  Tensor value(OpSite site = {}) const;
  operator Tensor() const { return value(); }  // NOLINT(google-explicit-constructor): w * x

  // variable = value, += delta, -= delta; each returns *this.
  const Variable& assign(const Tensor& value, OpSite site = {}) const;
  const Variable& assign_add(const Tensor& delta, OpSite site = {}) const;
  const Variable& assign_sub(const Tensor& delta, OpSite site = {}) const;
  // v[indices] = value with NumPy's basic indexing (core/tensor_index.h), as TensorFlow's
  // v[...].assign(value): op ResourceStridedSliceAssign. value must have the slice's shape and the
  // variable's dtype (InvalidArgument otherwise, naming both shapes). Not differentiable.
  //   v.index_put({Slice(0, 2)}, zeros({2, 4}));
  const Variable& index_put(std::initializer_list<TensorIndex> indices, const Tensor& value,
                            OpSite site = {}) const;

  // The kResource tensor that identifies the variable to ops and tapes.
  const Tensor& handle() const { return handle_; }

 private:
  Tensor handle_;
};

namespace variable_internal {
// How many Variables this thread has made (duet::function allows them on a first trace only).
int64_t VariablesCreated();
}  // namespace variable_internal

}  // namespace duet
