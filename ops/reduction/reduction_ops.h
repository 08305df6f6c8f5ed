// Reduction op functions: sums, means, extrema, products and arg-extrema along axes.
//
// `axes` (see Axes) defaults to all axes: reduce_sum(x), reduce_sum(x, 1), reduce_sum(x, {0, 1}),
// reduce_sum(x, {0, 1}, /*keep_dims=*/true). keep_dims keeps reduced dims with size 1.
// dtypes: float32, float64, int32, int64 (All and Any: bool). Integer sums and products wrap on
// overflow; the integer mean truncates toward zero like TensorFlow's. Max and min propagate NaN.
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

// Logical and over `axes` of a bool tensor (op All, TensorFlow's reduce_all); true over an empty
// axis. Not differentiable.
Tensor reduce_all(const Tensor& x, Axes axes = {}, bool keep_dims = false, OpSite site = {});
// Logical or over `axes` of a bool tensor (op Any, TensorFlow's reduce_any); false over an empty
// axis. Not differentiable.
Tensor reduce_any(const Tensor& x, Axes axes = {}, bool keep_dims = false, OpSite site = {});

// sum(t ** 2) / 2 over every element, a scalar of t's dtype (op L2Loss, TensorFlow's
// tf.nn.l2_loss; float32, float64, float16, bfloat16, the 16-bit ones summed in float32). 0 for an
// empty t. Its gradient is t * dy.
Tensor l2_loss(const Tensor& t, OpSite site = {});

// Running sum along `axis` (op Cumsum, TensorFlow's tf.math.cumsum): out[i] = x[0] + ... + x[i].
// `exclusive` leaves x[i] out (out[0] = 0); `reverse` sums from the end. The same dtypes as
// reduce_sum; integer sums wrap. `axis` is in [-rank, rank); a scalar input is an error.
Tensor cumsum(const Tensor& x, int64_t axis = 0, bool exclusive = false, bool reverse = false,
              OpSite site = {});
// The same with the axis as a scalar int32 or int64 tensor (what gradients pass on).
Tensor cumsum(const Tensor& x, const Tensor& axis, bool exclusive, bool reverse, OpSite site = {});
// Running product along `axis` (op Cumprod): like cumsum, with 1 as the exclusive first value.
Tensor cumprod(const Tensor& x, int64_t axis = 0, bool exclusive = false, bool reverse = false,
               OpSite site = {});
Tensor cumprod(const Tensor& x, const Tensor& axis, bool exclusive, bool reverse, OpSite site = {});

// Index of the largest value along `axis` (first one on ties; a NaN counts as largest), as
// `output_type` (int32 or int64); the axis is removed (op ArgMax). The axis must not be empty.
Tensor argmax(const Tensor& x, int64_t axis, DType output_type = kInt64, OpSite site = {});
// Index of the smallest value along `axis` (first one on ties; a NaN counts as smallest) (ArgMin).
Tensor argmin(const Tensor& x, int64_t axis, DType output_type = kInt64, OpSite site = {});

}  // namespace duet
