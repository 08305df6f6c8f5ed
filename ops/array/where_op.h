// Where with one input: the coordinates of the true (non-zero) elements.
#pragma once

#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet {

// The coordinates of the true (non-zero) elements of `condition` in row-major order (op Where,
// TensorFlow's one-argument tf.where), as an int64 tensor of shape [num_true, condition.rank].
// Named where_indices because where(condition, x, y) (op SelectV2, ops/math/math_ops.h) is the
// three-argument form. The output's first dim depends on the values, so a graph knows it only
// when it runs. Not differentiable. dtypes: bool, float32/64, float16, bfloat16, int32/64.
Tensor where_indices(const Tensor& condition, OpSite site = {});
// The same under TensorFlow's name, as API.md spells it: where(b) (one argument) is
// where_indices(b); where(b, x, y) is the select.
Tensor where(const Tensor& condition, OpSite site = {});

}  // namespace duet
