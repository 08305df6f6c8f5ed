// Gradients of the reductions. The upstream gradient has the output's shape; it is viewed with
// the reduced dims kept as 1 and broadcast back over the input's shape.
#include "ops/reduction/reduction_grads.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "core/int_values.h"
#include "ops/array/array_ops.h"
#include "ops/gradient.h"
#include "ops/math/math_ops.h"
#include "ops/reduction/reduction_attrs.h"
#include "ops/reduction/reduction_ops.h"

namespace duet {

Tensor SumOver(const Tensor& x, Axes axes, bool keep_dims) {
  const DType dtype = x.dtype();
  if (dtype != kFloat16 && dtype != kBFloat16) return reduce_sum(x, std::move(axes), keep_dims);
  return cast(reduce_sum(cast(x, kFloat32), std::move(axes), keep_dims), dtype);
}

Tensor ReduceToShape(const Tensor& grad, const GradientContext& ctx, int i) {
  const Shape& from = grad.shape();
  const Shape& shape = ctx.input_shape(i);
  // The common, unbroadcast case: no op at all. (Two unknown ranks compare equal, but a read of a
  // variable passed into a cond branch has one, and may well have been broadcast.)
  if (from == shape && !shape.unknown_rank()) return grad;
  if (from.unknown_rank() || !shape.is_fully_defined()) {
    // Graph mode with unknown dims (eagerly every shape is known): the axes at run time, from
    // the input itself, which graph gradients always have.
    const Tensor input_shape = shape_of(ctx.input(i));
    const Tensor axes = broadcast_gradient_args(input_shape, shape_of(grad)).first;
    return reshape(SumOver(grad, axes, /*keep_dims=*/false), input_shape);
  }
  // The axes are known when the input's shape is: unknown dims of the gradient (a batch dim in
  // a graph) are never broadcast from a known input dim other than 1.
  if (from.rank() < shape.rank()) {
    throw Error(absl::InternalError(absl::StrCat("the gradient of ", ctx.op().name, " has shape ",
                                                 from.str(), ", which cannot be reduced to ",
                                                 shape.str(), ", a shape of higher rank")));
  }
  const int lead = from.rank() - shape.rank();
  std::vector<int64_t> axes;
  for (int d = 0; d < from.rank(); ++d) {
    // Axes of size 1 in the gradient are left alone: summing over them changes nothing.
    const bool broadcast = d < lead || shape.dim(d - lead) == 1;
    if (broadcast && from.dim(d) != 1) axes.push_back(d);
  }
  return reshape(axes.empty() ? grad : SumOver(grad, axes, /*keep_dims=*/true), shape);
}

namespace {

// Which dims of input 0 the call reduced (the forward op has validated the axes).
std::vector<bool> ReducedDims(const GradientContext& ctx) {
  const int rank = ctx.input_shape(0).rank();
  std::vector<bool> reduced(rank, false);
  for (int64_t a : IntValues(ctx.input(1))) reduced[a < 0 ? a + rank : a] = true;
  return reduced;
}

// The output's shape as keep_dims=true gives it: the input's, with reduced dims 1.
Shape KeptDimsShape(const Shape& in, const std::vector<bool>& reduced) {
  Shape kept = in;
  for (int d = 0; d < in.rank(); ++d) {
    if (reduced[d]) kept.set_dim(d, 1);
  }
  return kept;
}

// Note [Graph gradients of partially known shapes]: eagerly every shape is known. In a graph an
// input may have unknown dims (a batch placeholder); the gradient then reads them at run time
// with shape_of/size on the input, which graph gradients always have (they keep every input).

// `grad` (the output's shape) viewed with the reduced dims kept as 1.
Tensor ReshapeToKept(const Tensor& grad, const GradientContext& ctx,
                     const std::vector<bool>& reduced) {
  const Shape kept = KeptDimsShape(ctx.input_shape(0), reduced);
  if (std::count(kept.dims().begin(), kept.dims().end(), Shape::kUnknownDim) <= 1) {
    return reshape(grad, kept);  // reshape infers one unknown dim
  }
  const Tensor shape = shape_of(ctx.input(0));
  std::vector<int32_t> mask(reduced.begin(), reduced.end());
  return reshape(grad, where(cast(from_vector(mask), kBool), ones_like(shape), shape));
}

// `grad` broadcast back over input 0's shape.
Tensor BroadcastToInput(const Tensor& grad, const GradientContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  return in.is_fully_defined() ? broadcast_to(grad, in)
                               : broadcast_to(grad, shape_of(ctx.input(0)));
}

TensorList SumGrad(const GradientContext& ctx) {
  return {BroadcastToInput(ReshapeToKept(ctx.grad(0), ctx, ReducedDims(ctx)), ctx), Tensor()};
}

TensorList MeanGrad(const GradientContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const std::vector<bool> reduced = ReducedDims(ctx);
  const DType dtype = ctx.grad(0).dtype();
  double count = 1;
  bool known = true;
  for (int d = 0; d < in.rank(); ++d) {
    if (!reduced[d]) continue;
    count *= static_cast<double>(in.dim(d));
    known = known && in.dim(d) != Shape::kUnknownDim;
  }
  // The number of elements averaged: input size / output size when a reduced dim is unknown.
  const Tensor divisor =
      known ? scalar(count, dtype)
            : divide(cast(size(ctx.input(0)), dtype), cast(size(ctx.grad(0)), dtype));
  // Divided before broadcasting: the output has fewer elements than the input.
  return {BroadcastToInput(divide(ReshapeToKept(ctx.grad(0), ctx, reduced), divisor), ctx),
          Tensor()};
}

// Max and Min (TensorFlow's rule): the gradient goes to the elements equal to the extreme value,
// split equally among ties.
TensorList ExtremumGrad(const GradientContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Shape kept = KeptDimsShape(x.shape(), ReducedDims(ctx));
  const Tensor indicators = cast(equal(x, reshape(ctx.output(0), kept)), x.dtype());
  const Tensor ties = reduce_sum(indicators, ctx.input(1), /*keep_dims=*/true);
  return {multiply(divide(indicators, ties), reshape(ctx.grad(0), kept)), Tensor()};
}

// The columns of the (outer, n) matrix y moved `s` places towards the end (towards the start when
// `reverse`), with ones shifted in: column k becomes y's column k - s (k + s). 0 < s <= n.
Tensor Shifted(const Tensor& y, int64_t outer, int64_t n, int64_t s, bool reverse) {
  const Tensor ones_in = ones({outer, s}, y.dtype());
  if (reverse) return concat({slice(y, {0, s}, {outer, n - s}), ones_in}, 1);
  return concat({ones_in, slice(y, {0, 0}, {outer, n - s})}, 1);
}

// Exclusive cumulative product along the rows of the (outer, n) matrix x (from the end when
// `reverse`): column k is the product of columns < k (> k). A log-step scan of multiplications,
// so no division, which would fail on zeros, and O(n log n) work rather than O(n^2).
Tensor ExclusiveCumprod(const Tensor& x, int64_t outer, int64_t n, bool reverse) {
  Tensor y = Shifted(x, outer, n, 1, reverse);
  // After the step with shift s, column k holds the product of up to 2s columns before it.
  for (int64_t s = 1; s < n - 1; s *= 2) y = multiply(y, Shifted(y, outer, n, s, reverse));
  return y;
}

// d prod / d x_k is the product of the other elements, computed as the product of those before k
// times those after k: exact with zeros among the inputs, and differentiable again. The reduced
// dims are moved last and flattened into rows of n elements.
TensorList ProdGrad(const GradientContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Shape& in = x.shape();
  const std::vector<bool> reduced = ReducedDims(ctx);
  std::vector<int64_t> perm;
  int64_t outer = 1, n = 1;
  for (int d = 0; d < in.rank(); ++d) {
    if (!reduced[d]) perm.push_back(d), outer *= in.dim(d);
  }
  for (int d = 0; d < in.rank(); ++d) {
    if (reduced[d]) perm.push_back(d), n *= in.dim(d);
  }
  if (outer == 0 || n == 0) return {zeros_like(x), Tensor()};  // no elements
  Shape permuted;
  for (int64_t p : perm) permuted.push_back(in.dim(static_cast<int>(p)));
  const bool moved = !std::is_sorted(perm.begin(), perm.end());
  const Tensor rows = reshape(moved ? transpose(x, perm) : x, {outer, n});
  const Tensor others = multiply(ExclusiveCumprod(rows, outer, n, /*reverse=*/false),
                                 ExclusiveCumprod(rows, outer, n, /*reverse=*/true));
  Tensor grad = reshape(multiply(others, reshape(ctx.grad(0), {outer, 1})), permuted);
  if (moved) {
    std::vector<int64_t> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<int64_t>(i);
    grad = transpose(grad, inverse);
  }
  return {grad, Tensor()};
}

// TensorFlow's _CumsumGrad: each x[i] reaches every out[j] at or after it (before it with
// `reverse`), so the gradient is the cumulative sum of dy in the other direction.
TensorList CumsumGrad(const GradientContext& ctx) {
  const bool exclusive = ctx.attr(ScanAttrs::kExclusive);
  const bool reverse = ctx.attr(ScanAttrs::kReverse);
  return {cumsum(ctx.grad(0), ctx.input(1), exclusive, !reverse), Tensor()};
}

// TensorFlow's _CumprodGrad: d out[j] / d x[i] = out[j] / x[i] for the out[j] that x[i] reaches,
// so the gradient is cumsum(out * dy) in the other direction divided by x, with 0 where x is 0
// (as TensorFlow's div_no_nan; the true gradient there is not computed, in TensorFlow either).
TensorList CumprodGrad(const GradientContext& ctx) {
  const Tensor& x = ctx.input(0);
  const bool exclusive = ctx.attr(ScanAttrs::kExclusive);
  const bool reverse = ctx.attr(ScanAttrs::kReverse);
  const Tensor sums =
      cumsum(multiply(ctx.output(0), ctx.grad(0)), ctx.input(1), exclusive, !reverse);
  const Tensor zero = zeros_like(x);
  const Tensor is_zero = equal(x, zero);
  return {where(is_zero, zero, divide(sums, where(is_zero, ones_like(x), x))), Tensor()};
}

// d (sum(t^2) / 2) = t dt.
TensorList L2LossGrad(const GradientContext& ctx) { return {multiply(ctx.input(0), ctx.grad(0))}; }

const GradientRegistrar kSumGrad("Sum", SumGrad, /*keep_inputs=*/{1});
const GradientRegistrar kMeanGrad("Mean", MeanGrad, /*keep_inputs=*/{1});
const GradientRegistrar kMaxGrad("Max", ExtremumGrad, /*keep_inputs=*/{0, 1},
                                 /*keep_outputs=*/{0});
const GradientRegistrar kMinGrad("Min", ExtremumGrad, /*keep_inputs=*/{0, 1},
                                 /*keep_outputs=*/{0});
const GradientRegistrar kProdGrad("Prod", ProdGrad, /*keep_inputs=*/{0, 1});
const GradientRegistrar kL2LossGrad("L2Loss", L2LossGrad, /*keep_inputs=*/{0});
const GradientRegistrar kCumsumGrad("Cumsum", CumsumGrad, /*keep_inputs=*/{1});
const GradientRegistrar kCumprodGrad("Cumprod", CumprodGrad, /*keep_inputs=*/{0, 1},
                                     /*keep_outputs=*/{0});

const NotDifferentiable kArgMax("ArgMax");
const NotDifferentiable kArgMin("ArgMin");
const NotDifferentiable kAll("All");  // bool
const NotDifferentiable kAny("Any");

}  // namespace
}  // namespace duet
