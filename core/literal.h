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
// A C++ number as a 0-d tensor of `dtype`, checked as LiteralAs checks; one allocation (how the
// operators turn `x + 1`'s 1 into a tensor).
absl::StatusOr<Tensor> NumberAs(int64_t value, DType dtype);
absl::StatusOr<Tensor> NumberAs(double value, DType dtype);

}  // namespace duet
