// Array (shape-manipulation) op functions: views, copies, gathers and shape queries.
//
// Integer operands that TensorFlow takes as tensors (shapes, perms, axes, begin/size, multiples,
// paddings) are tensor inputs of the ops; the overloads taking C++ values turn them into small
// int32 constants (int64 when a value does not fit). Negative axes count from the end.
// All ops accept every dtype (float32/64, float16, bfloat16, int32/64, bool).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <utility>
#include <vector>

#include "core/constant.h"
#include "core/tensor.h"
#include "ops/array/strided_slice_spec.h"
#include "ops/op_site.h"

namespace duet {

// A node holding `value` (op Const): in a graph, the value embedded in the node; eagerly, value.
Tensor const_op(const Tensor& value, OpSite site = {});
// A graph input of `dtype` and `shape` (unknown dims -1; Shape::UnknownRank() for any shape),
// fed by Session::run (op Placeholder). Only inside a GraphScope: eagerly it throws Error.
Tensor placeholder(DType dtype, const Shape& shape, OpSite site = {});

// x itself, as a view of the same buffer (op Identity).
Tensor identity(const Tensor& x, OpSite site = {});
// The tensors themselves, as views, in one op (op IdentityN): it ties them together in a graph.
std::vector<Tensor> identity_n(const std::vector<Tensor>& values, OpSite site = {});
// A copy of x in a buffer of its own, on x's device (op Snapshot).
Tensor snapshot(const Tensor& x, OpSite site = {});
// x itself once its shape is checked against `shape` (unknown dims -1 match any size; an
// unknown-rank shape matches any tensor); the output carries the more specific of the two shapes
// (op EnsureShape). A mismatch is an InvalidArgument error naming both shapes, in a graph when
// the node runs.
Tensor ensure_shape(const Tensor& x, const Shape& shape, OpSite site = {});
// In a graph, a node that passes `input` on unless Session::run feeds it another value of the
// same dtype that `shape` (which may be less specific than input's) allows (op
// PlaceholderWithDefault). Eagerly it is `input`. Its shape must be compatible with input's.
Tensor placeholder_with_default(const Tensor& input, const Shape& shape, OpSite site = {});
// x copied to `device` (op DuetCopyToDevice); what Tensor::to runs. The gradient copies back.
Tensor copy_to_device(const Tensor& x, Device device, OpSite site = {});
// x as a view, but gradients do not flow through it (op StopGradient).
Tensor stop_gradient(const Tensor& x, OpSite site = {});

// x viewed with a new shape of the same element count; one dim may be -1 (inferred). No copy.
Tensor reshape(const Tensor& x, const Shape& shape, OpSite site = {});
// reshape(x, {2, -1}): a braced list is a Shape (this overload keeps {0} from also matching
// Tensor).
Tensor reshape(const Tensor& x, std::initializer_list<int64_t> shape, OpSite site = {});
// Same, with the shape given as a 1-D int32/int64 tensor (e.g. from shape_of).
Tensor reshape(const Tensor& x, const Tensor& shape, OpSite site = {});

// Permutes the dims: output dim i is input dim perm[i]; an empty perm reverses the dims.
Tensor transpose(const Tensor& x, std::vector<int64_t> perm = {}, OpSite site = {});

// Joins tensors along `axis`; all other dims must match (op ConcatV2).
Tensor concat(const std::vector<Tensor>& values, int64_t axis, OpSite site = {});

// Stacks same-shape tensors along a new axis `axis` of the output (in [-rank-1, rank]), as
// numpy.stack (op Pack). At least one tensor.
Tensor stack(const std::vector<Tensor>& values, int64_t axis = 0, OpSite site = {});
// The slices of x along `axis`, each without that axis, as a list of x.shape[axis] tensors (op
// Unpack); the inverse of stack. The size of the axis must be known (in graphs too).
std::vector<Tensor> unstack(const Tensor& x, int64_t axis = 0, OpSite site = {});

// Splits x into `num_splits` equal pieces along `axis` (op Split).
std::vector<Tensor> split(const Tensor& x, int64_t num_splits, int64_t axis = 0, OpSite site = {});
// Splits x into pieces of the given sizes along `axis`; one size may be -1 (op SplitV).
std::vector<Tensor> split(const Tensor& x, std::vector<int64_t> sizes, int64_t axis = 0,
                          OpSite site = {});

// The block of x starting at `begin` with extent `size` per dim; size -1 means "to the end".
Tensor slice(const Tensor& x, std::vector<int64_t> begin, std::vector<int64_t> size,
             OpSite site = {});

// x[begin:end:strides] with NumPy's basic indexing (op StridedSlice, TensorFlow's
// tf.strided_slice): along the dim entry i refers to, the elements begin[i], begin[i] +
// strides[i], ... up to but excluding end[i]. Negative begins and ends count from the end and are
// clamped into the dim; negative strides walk backwards. The masks (Note [Strided slice specs] in
// ops/array/strided_slice_spec.h) turn entry i into `...`, a new size-1 dim, a single index that
// drops the dim, or a range open at its begin or end:
//   x[1:, ..., ::-1, None, 2] is strided_slice(x, {1, 0, 0, 0, 2}, {0, 0, 0, 0, 3},
//       {1, 1, -1, 1, 1}, {.begin_mask = 0b00100, .end_mask = 0b00101, .ellipsis_mask = 0b00010,
//       .new_axis_mask = 0b01000, .shrink_axis_mask = 0b10000})
// begin, end and strides have one entry each per slice entry. Errors (InvalidArgument) name the
// values: lengths that differ, a zero stride, more than one ellipsis, more entries than dims, and
// a single index (shrink_axis_mask) outside its dim or with a negative stride.
Tensor strided_slice(const Tensor& x, const std::vector<int64_t>& begin,
                     const std::vector<int64_t>& end, const std::vector<int64_t>& strides,
                     const StridedSliceMasks& masks = {}, OpSite site = {});
// strided_slice(x, {0, 1}, {2, 3}, {1, 1}): braced lists are the values.
Tensor strided_slice(const Tensor& x, std::initializer_list<int64_t> begin,
                     std::initializer_list<int64_t> end, std::initializer_list<int64_t> strides,
                     const StridedSliceMasks& masks = {}, OpSite site = {});
// Same, with begin, end and strides as 1-D tensors of one int dtype (int32 or int64).
Tensor strided_slice(const Tensor& x, const Tensor& begin, const Tensor& end, const Tensor& strides,
                     const StridedSliceMasks& masks = {}, OpSite site = {});
// The gradient of strided_slice (op StridedSliceGrad): zeros of `shape` (the sliced input's
// shape, a 1-D int tensor of begin's dtype) with dy put where the slice took each element from.
// dy must have the slice's shape.
Tensor strided_slice_grad(const Tensor& shape, const Tensor& begin, const Tensor& end,
                          const Tensor& strides, const Tensor& dy,
                          const StridedSliceMasks& masks = {}, OpSite site = {});

// Assigns `value` to the elements of the variable `ref` (a kResource handle) that
// strided_slice(ref's value, begin, end, strides, masks) selects (op ResourceStridedSliceAssign,
// what TensorFlow's v[...].assign(value) runs). value must have the slice's shape and the
// variable's dtype; errors (InvalidArgument) name both shapes.
void resource_strided_slice_assign(const Tensor& ref, const Tensor& begin, const Tensor& end,
                                   const Tensor& strides, const Tensor& value,
                                   const StridedSliceMasks& masks = {}, OpSite site = {});

// x with the dims listed in `axes` reversed (op ReverseV2, TensorFlow's tf.reverse). Axes may be
// negative; an axis out of range or listed twice is an InvalidArgument error.
Tensor reverse(const Tensor& x, const std::vector<int64_t>& axes, OpSite site = {});
// reverse(x, {0, -1}): a braced list is the axes.
Tensor reverse(const Tensor& x, std::initializer_list<int64_t> axes, OpSite site = {});
// Same, with the axes as a 1-D int32/int64 tensor.
Tensor reverse(const Tensor& x, const Tensor& axes, OpSite site = {});

// Rows of `params` along `axis` picked by int32/int64 `indices` (op GatherV2). The output shape
// is params.shape[:axis] + indices.shape + params.shape[axis+1:]. An index outside
// [0, params.shape[axis]) is an InvalidArgument error naming it.
Tensor gather(const Tensor& params, const Tensor& indices, int64_t axis = 0, OpSite site = {});
// The same with `batch_dims` leading dims that params and indices share (tf.gather's batch_dims;
// negative counts from indices' rank): each batch row gathers from its own params, and the
// output is params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis+1:]. batch_dims
// must not exceed axis.
Tensor gather(const Tensor& params, const Tensor& indices, int64_t axis, int64_t batch_dims,
              OpSite site = {});

// Slices of `params` picked by the rows of int32/int64 `indices` (op GatherNd): indices has shape
// batch + [K] with K <= params.rank, each row indexing params' first K dims, and the output has
// shape batch + params.shape[K:]. A row outside params' shape is an InvalidArgument error naming
// the row, its index values and params' shape (on CUDA it gives zeros).
Tensor gather_nd(const Tensor& params, const Tensor& indices, OpSite site = {});
// Zeros of shape `shape` with `updates` added at the slices the rows of `indices` pick (op
// ScatterNd): indices has shape batch + [K], updates batch + shape[K:]; duplicate rows add up.
// `shape` is a 1-D tensor of indices' dtype. An out-of-range row is an InvalidArgument error
// (dropped on CUDA). dtypes: float32/64, float16, bfloat16, int32/64.
Tensor scatter_nd(const Tensor& indices, const Tensor& updates, const Tensor& shape,
                  OpSite site = {});
// scatter_nd with a Shape; the shape tensor takes indices' dtype.
Tensor scatter_nd(const Tensor& indices, const Tensor& updates, const Shape& shape,
                  OpSite site = {});
// `tensor` with the slices the rows of `indices` pick replaced by `updates` (op
// TensorScatterUpdate); shapes as in scatter_nd with tensor's shape. Of duplicate rows the last
// wins on the CPU (any one on CUDA). Every dtype.
Tensor tensor_scatter_update(const Tensor& tensor, const Tensor& indices, const Tensor& updates,
                             OpSite site = {});
// `tensor` with `updates` added at the slices the rows of `indices` pick (op TensorScatterAdd).
// dtypes as scatter_nd.
Tensor tensor_scatter_add(const Tensor& tensor, const Tensor& indices, const Tensor& updates,
                          OpSite site = {});

// x with a size-1 dim inserted at `axis` (in [-rank-1, rank]). A view, no copy.
Tensor expand_dims(const Tensor& x, int64_t axis, OpSite site = {});
// x without the size-1 dims listed in `axes` (all size-1 dims when empty). A view, no copy.
Tensor squeeze(const Tensor& x, std::vector<int64_t> axes = {}, OpSite site = {});

// x repeated multiples[i] times along each dim i.
Tensor tile(const Tensor& x, std::vector<int64_t> multiples, OpSite site = {});

// One-hot encoding of int32/int64 `indices`: a new dim of size `depth` at `axis` (-1 = last)
// holding on_value at the index and off_value elsewhere. Out-of-range indices give all off_value.
Tensor one_hot(const Tensor& indices, int64_t depth, double on_value = 1, double off_value = 0,
               int64_t axis = -1, DType dtype = kFloat32, OpSite site = {});

// x broadcast (NumPy rules, x's dims aligned right) to `shape`.
Tensor broadcast_to(const Tensor& x, const Shape& shape, OpSite site = {});
// broadcast_to(x, {2, 3}): a braced list is a Shape.
Tensor broadcast_to(const Tensor& x, std::initializer_list<int64_t> shape, OpSite site = {});
// Same, with the target shape as a 1-D int32/int64 tensor.
Tensor broadcast_to(const Tensor& x, const Tensor& shape, OpSite site = {});

// For shapes s0 and s1 (int32/int64 vectors) that broadcast together, the axes of their
// broadcast shape along which each was broadcast (op BroadcastGradientArgs): a gradient of the
// broadcast shape summed over r0 (r1) and reshaped to s0 (s1) is the operand's gradient.
std::pair<Tensor, Tensor> broadcast_gradient_args(const Tensor& s0, const Tensor& s1,
                                                  OpSite site = {});
// The shape of x as a 1-D tensor of `out_type` (int32 or int64) (op Shape).
Tensor shape_of(const Tensor& x, DType out_type = kInt32, OpSite site = {});
// The number of elements of x as a scalar of `out_type` (op Size).
Tensor size(const Tensor& x, DType out_type = kInt32, OpSite site = {});
// The rank of x as an int32 scalar (op Rank).
Tensor rank(const Tensor& x, OpSite site = {});

// Zeros with x's dtype and shape.
Tensor zeros_like(const Tensor& x, OpSite site = {});
// Ones (true for bool) with x's dtype and shape.
Tensor ones_like(const Tensor& x, OpSite site = {});

// A tensor of shape `dims` filled with the scalar `value` (op Fill; dtype from value).
Tensor fill(const Shape& dims, const Tensor& value, OpSite site = {});
// fill({2, 3}, value): a braced list is a Shape.
Tensor fill(std::initializer_list<int64_t> dims, const Tensor& value, OpSite site = {});
// Same, with the dims as a 1-D int32/int64 tensor.
Tensor fill(const Tensor& dims, const Tensor& value, OpSite site = {});

// [start, start + delta, ...) up to but excluding `limit`, as tf.range (op Range): scalar
// operands, held on the host. The length is ceil(|limit - start| / |delta|), 0 when delta points
// away from limit; delta 0 is an InvalidArgument error. `dtype` (float32, float64, int32, int64)
// defaults to the first non-literal operand's dtype, else int32 (float32 when a literal is
// fractional); literal operands are converted to it, tensors must have it. For plain numbers,
// range() in core/constant.h makes the tensor directly.
Tensor range(const Tensor& start, const Tensor& limit, const Tensor& delta = 1,
             std::optional<DType> dtype = {}, OpSite site = {});

// x with paddings[i].first zeros before and paddings[i].second zeros after each dim i (op Pad).
Tensor pad(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& paddings,
           OpSite site = {});
// pad(x, {{1, 1}, {0, 2}}): a braced list is (before, after) pairs.
Tensor pad(const Tensor& x, std::initializer_list<std::pair<int64_t, int64_t>> paddings,
           OpSite site = {});
// Same, with paddings as an int32/int64 tensor of shape (rank, 2).
Tensor pad(const Tensor& x, const Tensor& paddings, OpSite site = {});

// x padded with the scalar `constant_values` (of x's dtype; a C++ number is converted to it)
// instead of zeros (op PadV2): pad(x, {{1, 1}}, -1.f). InvalidArgument for a non-scalar constant.
Tensor pad(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& paddings,
           const Tensor& constant_values, OpSite site = {});
Tensor pad(const Tensor& x, std::initializer_list<std::pair<int64_t, int64_t>> paddings,
           const Tensor& constant_values, OpSite site = {});
Tensor pad(const Tensor& x, const Tensor& paddings, const Tensor& constant_values,
           OpSite site = {});

// x padded with its own mirror image along each dim, as tf.pad(mode=...) (op MirrorPad). `mode`
// is "REFLECT" (the edge is not repeated: [1, 2, 3] padded (2, 1) is [3, 2, 1, 2, 3, 2]) or
// "SYMMETRIC" (it is: [2, 1, 1, 2, 3, 3]). InvalidArgument when a padding exceeds TensorFlow's
// limits: dim - 1 for REFLECT, dim for SYMMETRIC.
Tensor mirror_pad(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& paddings,
                  std::string mode, OpSite site = {});
Tensor mirror_pad(const Tensor& x, std::initializer_list<std::pair<int64_t, int64_t>> paddings,
                  std::string mode, OpSite site = {});
Tensor mirror_pad(const Tensor& x, const Tensor& paddings, std::string mode, OpSite site = {});
// The gradient of mirror_pad (op MirrorPadGrad): dy (of the padded shape) with every padded
// element added onto the element it copies, cut to the unpadded shape. Not for bool.
Tensor mirror_pad_grad(const Tensor& dy, const Tensor& paddings, std::string mode,
                       OpSite site = {});

}  // namespace duet
