// add_gradients: how tapes, gradients() and loop gradients sum two gradients of one tensor.
#pragma once

#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet {

// a + b: AddV2, or AddN for TensorLists (kVariant), whose gradients add elementwise (Note
// [TensorList gradients] in ops/list/list_grads.cc).
Tensor add_gradients(const Tensor& a, const Tensor& b, OpSite site = {});

}  // namespace duet
