// What the reduction family's gradients offer the gradients of the other families
// (ops/<family>/*_grads.cc, all of them in //ops:gradients).
#pragma once

#include "core/tensor.h"
#include "ops/gradient.h"
#include "ops/reduction/axes.h"

namespace duet {

// reduce_sum for gradients of every floating dtype: float16 and bfloat16 are summed in float32 and
// cast back (Sum has no 16-bit kernels, and float32 accumulation is the more accurate choice for
// them anyway).
Tensor SumOver(const Tensor& x, Axes axes, bool keep_dims = false);

// Undoes NumPy broadcasting: sums `grad` (of the broadcast output's shape) over the axes along
// which input `i` of the op was broadcast, so the input receives a gradient of its own shape
// (with BroadcastGradientArgs at run time where graph mode leaves shapes unknown).
Tensor ReduceToShape(const Tensor& grad, const GradientContext& ctx, int i);

}  // namespace duet
