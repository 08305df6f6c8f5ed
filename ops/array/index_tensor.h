// Small integer tensors for the integer operands of array ops (shapes, perms, axes, sizes).
#pragma once

#include <cstdint>

#include "absl/types/span.h"
#include "core/tensor.h"

namespace duet {

// A 1-D tensor of `values`: int32 like TensorFlow's default, int64 when a value does not fit.
Tensor IndexTensor(absl::Span<const int64_t> values);
// A scalar int32 (int64 when it does not fit) tensor holding `value`.
Tensor IndexScalar(int64_t value);

}  // namespace duet
