// Gradients of the array ops. Data-movement ops send the upstream gradient back to where their
// values came from: a view's gradient is the gradient viewed with the input's shape, a slice's
// is padded out, copies made by tiling or broadcasting are summed, a gather's is scattered.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "core/int_values.h"
#include "ops/array/array_attrs.h"
#include "ops/array/array_ops.h"
#include "ops/array/segment_ops.h"
#include "ops/array/space_batch_ops.h"
#include "ops/array/strided_slice_spec.h"
#include "ops/gradient.h"
#include "ops/math/math_ops.h"
#include "ops/reduction/reduction_ops.h"

namespace duet {
namespace {

// The axis held by a scalar (or one-element) operand, in [0, rank).
int HostAxis(const Tensor& axis, int rank) {
  return ValueOrThrow(NormalizeAxis(IntValues(axis)[0], rank));
}

// `values` as a 1-D tensor of the int dtype of `like`, so it combines with `like` in int ops.
Tensor IntsLike(absl::Span<const int64_t> values, const Tensor& like) {
  if (like.dtype() == kInt64)
    return from_vector(std::vector<int64_t>(values.begin(), values.end()));
  return from_vector(std::vector<int32_t>(values.begin(), values.end()));
}

std::vector<int64_t> InversePermutation(const std::vector<int64_t>& perm) {
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<int64_t>(i);
  return inverse;
}

TensorList IdentityGrad(const GradientContext& ctx) { return {ctx.grad(0)}; }

// A copy's gradient goes back to where its input was.
TensorList CopyToDeviceGrad(const GradientContext& ctx) {
  return {copy_to_device(ctx.grad(0), ctx.input_device(0))};
}

// Reshape, ExpandDims and Squeeze only relabel the dims: the gradient is the upstream gradient
// with the input's shape. Their int operand (shape, dim) gets none.
TensorList ReshapeToInputGrad(const GradientContext& ctx) {
  TensorList result(ctx.num_inputs());
  result[0] = reshape(ctx.grad(0), ctx.input_shape(0));
  return result;
}

TensorList TransposeGrad(const GradientContext& ctx) {
  return {transpose(ctx.grad(0), InversePermutation(IntValues(ctx.input(1)))), Tensor()};
}

// Each value gets the part of the gradient it was concatenated into.
TensorList ConcatV2Grad(const GradientContext& ctx) {
  const int n = ctx.num_inputs() - 1;
  const int axis = HostAxis(ctx.input(n), ctx.input_shape(0).rank());
  std::vector<int64_t> sizes(n);
  for (int i = 0; i < n; ++i) sizes[i] = ctx.input_shape(i).dim(axis);
  const std::vector<Tensor> pieces = split(ctx.grad(0), sizes, axis);
  TensorList result(pieces.begin(), pieces.end());
  result.emplace_back();  // axis
  return result;
}

// Each stacked value gets its slice of the gradient.
TensorList PackGrad(const GradientContext& ctx) {
  const std::vector<Tensor> slices = unstack(ctx.grad(0), ctx.attr(PackAttrs::kAxis));
  return TensorList(slices.begin(), slices.end());
}

// The slices' gradients stacked again; a slice nothing used contributes zeros.
TensorList UnpackGrad(const GradientContext& ctx) {
  std::vector<Tensor> grads;
  for (int i = 0; i < ctx.num_outputs(); ++i) grads.push_back(ctx.grad_or_zeros(i));
  return {stack(grads, ctx.attr(UnpackAttrs::kAxis))};
}

// Every input gets its own output's gradient (undefined where that output was not used).
TensorList IdentityNGrad(const GradientContext& ctx) {
  TensorList result;
  for (int i = 0; i < ctx.num_outputs(); ++i) result.push_back(ctx.grad(i));
  return result;
}

// Split and SplitV: the pieces' gradients joined again; a piece nothing used contributes zeros.
Tensor ConcatOutputGrads(const GradientContext& ctx, const Tensor& axis) {
  std::vector<Tensor> grads;
  for (int i = 0; i < ctx.num_outputs(); ++i) grads.push_back(ctx.grad_or_zeros(i));
  return concat(grads, IntValues(axis)[0]);
}

TensorList SplitGrad(const GradientContext& ctx) {
  return {Tensor(), ConcatOutputGrads(ctx, ctx.input(0))};
}

TensorList SplitVGrad(const GradientContext& ctx) {
  return {ConcatOutputGrads(ctx, ctx.input(2)), Tensor(), Tensor()};
}

// The block goes back where it was cut out: zeros `begin` before it and the rest after it. The
// paddings are built with ops from the kept begin tensor.
TensorList SliceGrad(const GradientContext& ctx) {
  const Tensor& begin = ctx.input(1);
  const Shape& in = ctx.input_shape(0);
  const Shape& out = ctx.output_shape(0);
  const Tensor after =
      subtract(subtract(IntsLike(in.dims(), begin), begin), IntsLike(out.dims(), begin));
  const Shape column{in.rank(), 1};
  const Tensor paddings = concat({reshape(begin, column), reshape(after, column)}, 1);
  return {pad(ctx.grad(0), paddings), Tensor(), Tensor()};
}

TensorList PadGrad(const GradientContext& ctx) {
  const std::vector<int64_t> paddings = IntValues(ctx.input(1));
  const Shape& in = ctx.input_shape(0);
  std::vector<int64_t> begin(in.rank());
  for (int d = 0; d < in.rank(); ++d) begin[d] = paddings[2 * d];
  return {slice(ctx.grad(0), begin, std::vector<int64_t>(in.dims().begin(), in.dims().end())),
          Tensor()};
}

// PadV2's constant gets no gradient, as in TensorFlow.
TensorList PadV2Grad(const GradientContext& ctx) {
  TensorList grads = PadGrad(ctx);
  grads.push_back(Tensor());
  return grads;
}

// MirrorPad and MirrorPadGrad are linear and each other's adjoint.
TensorList MirrorPadGrad(const GradientContext& ctx) {
  return {mirror_pad_grad(ctx.grad(0), ctx.input(1), ctx.attr(MirrorPadAttrs::kMode)), Tensor()};
}

TensorList MirrorPadGradGrad(const GradientContext& ctx) {
  return {mirror_pad(ctx.grad(0), ctx.input(1), ctx.attr(MirrorPadAttrs::kMode)), Tensor()};
}

// Dim d of the output is multiples[d] copies of the input's dim d, so viewing the gradient as
// [m0, d0, m1, d1, ...] and summing the m axes adds up every copy.
TensorList TileGrad(const GradientContext& ctx) {
  const std::vector<int64_t> multiples = IntValues(ctx.input(1));
  const Shape& in = ctx.input_shape(0);
  Shape interleaved;
  std::vector<int64_t> copy_axes;
  for (int d = 0; d < in.rank(); ++d) {
    interleaved.push_back(multiples[d]);
    interleaved.push_back(in.dim(d));
    copy_axes.push_back(2 * d);
  }
  return {reduce_sum(reshape(ctx.grad(0), interleaved), copy_axes), Tensor()};
}

// Sums over the dims that broadcasting added (leading) or stretched (size 1 in the input).
TensorList BroadcastToGrad(const GradientContext& ctx) {
  const Tensor& grad = ctx.grad(0);
  const Shape& in = ctx.input_shape(0);
  const Shape& out = ctx.output_shape(0);
  const int lead = out.rank() - in.rank();
  std::vector<int64_t> axes;
  for (int d = 0; d < lead; ++d) axes.push_back(d);
  for (int d = 0; d < in.rank(); ++d) {
    if (in.dim(d) == 1 && out.dim(lead + d) != 1) axes.push_back(lead + d);
  }
  if (axes.empty()) return {grad, Tensor()};
  return {reshape(reduce_sum(grad, axes, /*keep_dims=*/true), in), Tensor()};
}

// GatherV2 with batch_dims b > 0: grad is B + O + I + T (B = params[:b], the batch dims params
// and indices share; O = params[b:axis]; I = indices[b:]; T = params[axis + 1:]). Moving I before
// O and offsetting each batch row's indices by row * N (N = params[axis]) makes it one
// scatter-add into [batch * N] + O + T, as TensorFlow's _BatchGatherGrad does; the offsets are
// an exclusive cumsum of ones of the indices' shape, so they live where the indices do.
Tensor BatchGatherGrad(const Tensor& grad, const Tensor& indices, const Shape& params, int axis,
                       int b) {
  if (!params.is_fully_defined() || !indices.shape().is_fully_defined()) {
    throw Error(absl::UnimplementedError(absl::StrCat(
        "the gradient of GatherV2 with batch_dims = ", b, " needs known shapes, got params ",
        params.str(), " and indices ", indices.shape().str())));
  }
  const int num_outer = axis - b, num_indices = indices.rank() - b;
  std::vector<int64_t> to_front;  // B + O + I + T -> B + I + O + T
  for (int d = 0; d < b; ++d) to_front.push_back(d);
  for (int d = 0; d < num_indices; ++d) to_front.push_back(b + num_outer + d);
  for (int d = 0; d < num_outer; ++d) to_front.push_back(b + d);
  for (int d = b + num_outer + num_indices; d < grad.rank(); ++d) to_front.push_back(d);
  int64_t batch = 1, rows = 1;
  for (int d = 0; d < b; ++d) batch *= params.dim(d);
  for (int d = b; d < indices.rank(); ++d) rows *= indices.shape().dim(d);
  const int64_t n = params.dim(axis);
  Shape flat{batch * rows}, by_batch;
  for (int d = 0; d < b; ++d) by_batch.push_back(params.dim(d));
  by_batch.push_back(n);
  for (int d = b; d < params.rank(); ++d) {
    if (d == axis) continue;
    flat.push_back(params.dim(d));
    by_batch.push_back(params.dim(d));
  }
  const Tensor rows_of = reshape(indices, {batch, rows});
  const Tensor offsets = multiply(cumsum(ones_like(rows_of), 0, /*exclusive=*/true),
                                  scalar(static_cast<double>(n), indices.dtype()));
  const Tensor ids = reshape(add(rows_of, offsets), {batch * rows});
  const Tensor sums =
      unsorted_segment_sum(reshape(transpose(grad, to_front), flat), ids, batch * n);
  std::vector<int64_t> back;  // B + [N] + O + T -> B + O + [N] + T = params
  for (int d = 0; d < b; ++d) back.push_back(d);
  for (int d = 0; d < num_outer; ++d) back.push_back(b + 1 + d);
  back.push_back(b);
  for (int d = axis + 1; d < params.rank(); ++d) back.push_back(d);
  return transpose(reshape(sums, by_batch), back);
}

// A scatter-add of the gradient's slices into params' shape. unsorted_segment_sum scatters along
// the first dims, so for axis > 0 the indices' dims move to the front first and the scattered
// axis moves back afterwards (TensorFlow's layout).
TensorList GatherV2Grad(const GradientContext& ctx) {
  const Shape& params = ctx.input_shape(0);
  const Tensor& indices = ctx.input(1);
  const Tensor& grad = ctx.grad(0);
  const int axis = HostAxis(ctx.input(2), params.rank());
  int64_t batch_dims = ctx.attr(GatherAttrs::kBatchDims);
  if (batch_dims < 0) batch_dims += indices.rank();
  if (batch_dims > 0) {
    return {BatchGatherGrad(grad, indices, params, axis, static_cast<int>(batch_dims)), Tensor(),
            Tensor()};
  }
  if (axis == 0) {
    return {unsorted_segment_sum(grad, indices, params.dim(0)), Tensor(), Tensor()};
  }
  const int q = indices.rank();
  std::vector<int64_t> to_front;
  for (int d = axis; d < axis + q; ++d) to_front.push_back(d);
  for (int d = 0; d < axis; ++d) to_front.push_back(d);
  for (int d = axis + q; d < grad.rank(); ++d) to_front.push_back(d);
  const Tensor scattered =
      unsorted_segment_sum(transpose(grad, to_front), indices, params.dim(axis));
  std::vector<int64_t> back;  // [P[axis], P[:axis], P[axis+1:]] -> P
  for (int d = 1; d <= axis; ++d) back.push_back(d);
  back.push_back(0);
  for (int d = axis + 1; d < params.rank(); ++d) back.push_back(d);
  return {transpose(scattered, back), Tensor(), Tensor()};
}

// The gradient goes back where the slice took it from, into zeros of the input's shape (from the
// input when its shape is not fully known, as in a graph with unknown dims).
TensorList StridedSliceGrad(const GradientContext& ctx) {
  const Tensor& begin = ctx.input(1);
  const Shape& in = ctx.input_shape(0);
  const Tensor shape =
      in.is_fully_defined() ? IntsLike(in.dims(), begin) : shape_of(ctx.input(0), begin.dtype());
  return {strided_slice_grad(shape, begin, ctx.input(2), ctx.input(3), ctx.grad(0),
                             StridedSliceMasksOf(ctx)),
          Tensor(), Tensor(), Tensor()};
}

// StridedSliceGrad is linear in dy, which it scatters: its gradient gathers back with the slice.
TensorList StridedSliceGradGrad(const GradientContext& ctx) {
  return {Tensor(), Tensor(), Tensor(), Tensor(),
          strided_slice(ctx.grad(0), ctx.input(1), ctx.input(2), ctx.input(3),
                        StridedSliceMasksOf(ctx))};
}

// Reversing is its own inverse.
TensorList ReverseV2Grad(const GradientContext& ctx) {
  return {reverse(ctx.grad(0), ctx.input(1)), Tensor()};
}

// Every output element is the value.
TensorList FillGrad(const GradientContext& ctx) { return {Tensor(), reduce_sum(ctx.grad(0))}; }

// Each data slice gets the gradient of the segment it was added to; slices with negative ids were
// dropped and get zeros.
TensorList UnsortedSegmentSumGrad(const GradientContext& ctx) {
  const Tensor& ids = ctx.input(1);
  const Tensor& grad = ctx.grad(0);
  const Shape& data = ctx.input_shape(0);
  if (ctx.output_shape(0).dim(0) == 0) {
    // No segments: every id was negative, and there is no row to gather from. Zeros of the data's
    // shape, made where the gradient is (zeros() would make them on the host).
    return {broadcast_to(reduce_sum(zeros_like(grad)), data), Tensor(), Tensor()};
  }
  const Tensor zero_id = scalar(0, ids.dtype());
  const Tensor gathered = gather(grad, maximum(ids, zero_id));
  Shape mask_shape(ids.shape().dims());
  for (int d = ids.rank(); d < data.rank(); ++d) mask_shape.push_back(1);
  const Tensor kept = reshape(greater_equal(ids, zero_id), mask_shape);
  return {where(kept, gathered, scalar(0, grad.dtype())), Tensor(), Tensor()};
}

// Note [Nd indices] in ops/array/scatter_nd_ops.cc. A gather's gradient scatters dy (adding the
// duplicate rows' shares); a scatter's gathers it back.
TensorList GatherNdGrad(const GradientContext& ctx) {
  const Tensor& indices = ctx.input(1);
  return {scatter_nd(indices, ctx.grad(0), ctx.input_shape(0)), Tensor()};
}

TensorList ScatterNdGrad(const GradientContext& ctx) {
  return {Tensor(), gather_nd(ctx.grad(0), ctx.input(0)), Tensor()};
}

// The replaced slices of tensor get no gradient; the updates get theirs.
TensorList TensorScatterUpdateGrad(const GradientContext& ctx) {
  const Tensor& indices = ctx.input(1);
  const Tensor& grad = ctx.grad(0);
  TensorList result(3);
  if (ctx.needs_grad(0)) {
    result[0] = tensor_scatter_update(grad, indices, zeros(ctx.input_shape(2), grad.dtype()));
  }
  if (ctx.needs_grad(2)) result[2] = gather_nd(grad, indices);
  return result;
}

TensorList TensorScatterAddGrad(const GradientContext& ctx) {
  return {ctx.grad(0), Tensor(), gather_nd(ctx.grad(0), ctx.input(1))};
}

// SpaceToBatchND and BatchToSpaceND move elements and are each other's inverse (padding and
// cropping aside): each one's gradient is the other applied to dy with the same operands.
TensorList SpaceToBatchNDGrad(const GradientContext& ctx) {
  return {batch_to_space_nd(ctx.grad(0), ctx.input(1), ctx.input(2)), Tensor(), Tensor()};
}

TensorList BatchToSpaceNDGrad(const GradientContext& ctx) {
  return {space_to_batch_nd(ctx.grad(0), ctx.input(1), ctx.input(2)), Tensor(), Tensor()};
}

const GradientRegistrar kIdentityGrad("Identity", IdentityGrad);
const GradientRegistrar kIdentityNGrad("IdentityN", IdentityNGrad);
const GradientRegistrar kSnapshotGrad("Snapshot", IdentityGrad);
const GradientRegistrar kEnsureShapeGrad("EnsureShape", IdentityGrad);
const GradientRegistrar kPlaceholderWithDefaultGrad("PlaceholderWithDefault", IdentityGrad);
const GradientRegistrar kCopyToDeviceGrad("DuetCopyToDevice", CopyToDeviceGrad);
const GradientRegistrar kReshapeGrad("Reshape", ReshapeToInputGrad);
const GradientRegistrar kExpandDimsGrad("ExpandDims", ReshapeToInputGrad);
const GradientRegistrar kSqueezeGrad("Squeeze", ReshapeToInputGrad);
const GradientRegistrar kTransposeGrad("Transpose", TransposeGrad, /*keep_inputs=*/{1});
const GradientRegistrar kConcatV2Grad("ConcatV2", ConcatV2Grad, /*keep_inputs=*/{1});
const GradientRegistrar kPackGrad("Pack", PackGrad);
const GradientRegistrar kUnpackGrad("Unpack", UnpackGrad);
const GradientRegistrar kSplitGrad("Split", SplitGrad, /*keep_inputs=*/{0});
const GradientRegistrar kSplitVGrad("SplitV", SplitVGrad, /*keep_inputs=*/{2});
const GradientRegistrar kSliceGrad("Slice", SliceGrad, /*keep_inputs=*/{1});
const GradientRegistrar kPadGrad("Pad", PadGrad, /*keep_inputs=*/{1});
const GradientRegistrar kPadV2Grad("PadV2", PadV2Grad, /*keep_inputs=*/{1});
const GradientRegistrar kMirrorPadGrad("MirrorPad", MirrorPadGrad, /*keep_inputs=*/{1});
const GradientRegistrar kMirrorPadGradGrad("MirrorPadGrad", MirrorPadGradGrad,
                                           /*keep_inputs=*/{1});
const GradientRegistrar kTileGrad("Tile", TileGrad, /*keep_inputs=*/{1});
const GradientRegistrar kBroadcastToGrad("BroadcastTo", BroadcastToGrad);
const GradientRegistrar kGatherV2Grad("GatherV2", GatherV2Grad, /*keep_inputs=*/{1, 2});
const GradientRegistrar kStridedSliceGrad("StridedSlice", StridedSliceGrad,
                                          /*keep_inputs=*/{0, 1, 2, 3});
const GradientRegistrar kStridedSliceGradGrad("StridedSliceGrad", StridedSliceGradGrad,
                                              /*keep_inputs=*/{1, 2, 3});
const GradientRegistrar kReverseV2Grad("ReverseV2", ReverseV2Grad, /*keep_inputs=*/{1});
const GradientRegistrar kFillGrad("Fill", FillGrad);
const GradientRegistrar kUnsortedSegmentSumGrad("UnsortedSegmentSum", UnsortedSegmentSumGrad,
                                                /*keep_inputs=*/{1});
const GradientRegistrar kSpaceToBatchNDGrad("SpaceToBatchND", SpaceToBatchNDGrad,
                                            /*keep_inputs=*/{1, 2});
const GradientRegistrar kBatchToSpaceNDGrad("BatchToSpaceND", BatchToSpaceNDGrad,
                                            /*keep_inputs=*/{1, 2});
const GradientRegistrar kGatherNdGrad("GatherNd", GatherNdGrad, /*keep_inputs=*/{1});
const GradientRegistrar kScatterNdGrad("ScatterNd", ScatterNdGrad, /*keep_inputs=*/{0});
const GradientRegistrar kTensorScatterUpdateGrad("TensorScatterUpdate", TensorScatterUpdateGrad,
                                                 /*keep_inputs=*/{1});
const GradientRegistrar kTensorScatterAddGrad("TensorScatterAdd", TensorScatterAddGrad,
                                              /*keep_inputs=*/{1});

// Graph inputs: a Const has no inputs; gradients with respect to a Placeholder are taken by
// gradients(), which treats it as a source.
const NotDifferentiable kConst("Const");
const NotDifferentiable kPlaceholder("Placeholder");
const NotDifferentiable kStopGradient("StopGradient");
// Variable updates have no gradient (as TensorFlow's resource assignments).
const NotDifferentiable kResourceStridedSliceAssign("ResourceStridedSliceAssign");
const NotDifferentiable kBroadcastGradientArgs("BroadcastGradientArgs");  // integer shapes
const NotDifferentiable kShape("Shape");
const NotDifferentiable kSize("Size");
const NotDifferentiable kRank("Rank");
const NotDifferentiable kZerosLike("ZerosLike");
const NotDifferentiable kOnesLike("OnesLike");
const NotDifferentiable kOneHot("OneHot");
const NotDifferentiable kRange("Range");
const NotDifferentiable kWhere("Where");                  // integer coordinates
const NotDifferentiable kDenseBincount("DenseBincount");  // counts; TensorFlow defines none either

}  // namespace
}  // namespace duet
