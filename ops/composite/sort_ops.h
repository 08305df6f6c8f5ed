// Sorting and masking written with other ops, as TensorFlow's Python does: sort and argsort over
// TopKV2, boolean_mask over Where and GatherV2. Differentiable where those are.
#pragma once

#include <cstdint>

#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet {

// x sorted along `axis` (negative counts from the end), ascending unless `descending`
// (tf.sort). Equal elements keep their order. Runs TopKV2 over the whole axis (of negated values
// for ascending order, so int32's and int64's lowest value has no ascending order), with
// transposes around it when the axis is not the last; the gradient is TopKV2's.
Tensor sort(const Tensor& x, int64_t axis = -1, bool descending = false, OpSite site = {});

// The int32 indices that sort x along `axis` (tf.argsort, stable: equal elements keep their
// order). Not differentiable.
Tensor argsort(const Tensor& x, int64_t axis = -1, bool descending = false, OpSite site = {});

// The elements (or slices) of x where the bool `mask` is true (tf.boolean_mask): mask's shape
// must match x's dims axis .. axis + mask.rank - 1, which are flattened into one dim of the
// count of true entries, in row-major order. Differentiable with respect to x.
Tensor boolean_mask(const Tensor& x, const Tensor& mask, int64_t axis = 0, OpSite site = {});

}  // namespace duet
