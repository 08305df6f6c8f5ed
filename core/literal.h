// Converting tensors made from C++ literals (Tensor's literal constructors) to the dtype an op
// needs: Note [Literal tensors] in literal.cc.
#pragma once

#include "absl/status/statusor.h"
#include "core/tensor.h"

namespace duet {

// `literal`'s values as a tensor of `dtype`, or InvalidArgument naming the value when it would
// change (1.5 as int32, 3 as bool, 2^40 as int32). Floats may round (0.1 as float16), as a
// Python float does in TensorFlow.
absl::StatusOr<Tensor> LiteralAs(const Tensor& literal, DType dtype);

}  // namespace duet
