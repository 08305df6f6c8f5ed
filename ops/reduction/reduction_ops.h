// Reduction op functions: sums, means, extrema, products and arg-extrema along axes.
//
// `axes` (see Axes) defaults to all axes: reduce_sum(x), reduce_sum(x, 1), reduce_sum(x, {0, 1}),
// reduce_sum(x, {0, 1}, /*keep_dims=*/true). keep_dims keeps reduced dims with size 1.
// dtypes: float32, float64, int32, int64. Integer sums and products wrap on overflow; the integer
// mean truncates toward zero like TensorFlow's. Max and min propagate NaN.
#pragma once

#include <cstdint>

#include "core/tensor.h"
#include "ops/op_site.h"
#include "ops/reduction/axes.h"

namespace duet {

// Sum over `axes` (op Sum); 0 over an empty axis.
Tensor reduce_sum(const Tensor& x, Axes axes = {}, bool keep_dims = false, OpSite site = {});
// Mean over `axes` (op Mean); NaN (floats) or 0 (ints) over an empty axis.
Tensor reduce_mean(const Tensor& x, Axes axes = {}, bool keep_dims = false, OpSite site = {});
// Maximum over `axes` (op Max); the dtype's lowest value (-inf) over an empty axis.
Tensor reduce_max(const Tensor& x, Axes axes = {}, bool keep_dims = false, OpSite site = {});
// Minimum over `axes` (op Min); the dtype's highest value (+inf) over an empty axis.
Tensor reduce_min(const Tensor& x, Axes axes = {}, bool keep_dims = false, OpSite site = {});
// Product over `axes` (op Prod); 1 over an empty axis.
Tensor reduce_prod(const Tensor& x, Axes axes = {}, bool keep_dims = false, OpSite site = {});

// Index of the largest value along `axis` (first one on ties; a NaN counts as largest), as
// `output_type` (int32 or int64); the axis is removed (op ArgMax). The axis must not be empty.
Tensor argmax(const Tensor& x, int64_t axis, DType output_type = kInt64, OpSite site = {});
// Index of the smallest value along `axis` (first one on ties; a NaN counts as smallest) (ArgMin).
Tensor argmin(const Tensor& x, int64_t axis, DType output_type = kInt64, OpSite site = {});

}  // namespace duet
