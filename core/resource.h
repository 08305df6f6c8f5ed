// Resources: mutable state that tensors of dtype kResource point to (variables, for now).
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "absl/strings/string_view.h"
#include "core/tensor.h"

namespace duet {

// The state behind a variable: its declared dtype and shape and its current value. Tensors are
// immutable, so an assignment swaps `value` for a new tensor, or writes into it when nothing else
// holds it (see Note [Variables copy on write]).
struct VariableResource {
  std::string name;
  DType dtype = kFloat32;
  Shape shape;
  bool trainable = true;
  std::mutex mu;  // guards value: assignments may come from several executor threads
  Tensor value;   // undefined until the first assignment
};

// A 0-d kResource tensor that owns (a share of) `resource`.
Tensor MakeResourceTensor(std::shared_ptr<VariableResource> resource, Device device);

// The variable a kResource tensor points to; nullptr for any other tensor.
VariableResource* VariableOf(const Tensor& t);

// OK when `value` has the variable's dtype and shape; otherwise InvalidArgument naming both.
absl::Status CheckAssignable(const VariableResource& variable, DType dtype, const Shape& shape);

// OK when `what` (an update's "grad", or a slot variable described as "slot m (variable 'w/m')")
// has the variable's dtype and a shape compatible with `variable_shape` (its declared shape, or
// its value's); otherwise InvalidArgument naming both, e.g. "grad is float32 (3,) but variable
// 'w' is float32 (2, 3)".
absl::Status CheckMatchesVariable(const VariableResource& variable, const Shape& variable_shape,
                                  absl::string_view what, DType dtype, const Shape& shape);

}  // namespace duet
