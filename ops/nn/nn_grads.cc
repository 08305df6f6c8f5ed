// Gradients of the nn ops (Conv2D and the pooling ops are in conv_pool_grads.cc). Every gradient
// is written with op functions, never host reads, so it can be differentiated again and, later,
// become graph nodes.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "ops/gradient.h"
#include "ops/math/math_ops.h"
#include "ops/math/operators.h"
#include "ops/nn/channels_first_grads.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/nn_ops.h"
#include "ops/reduction/reduction_grads.h"
#include "ops/reduction/reduction_ops.h"

namespace duet {
namespace {

// sum += t, where an undefined sum is zero.
void Accumulate(Tensor& sum, const Tensor& t) { sum = sum.defined() ? sum + t : t; }

// Gradients of a' b', where a' is a or its (last-two-dims) transpose by ta, b' likewise:
// TensorFlow's _MatMulGrad table. Each gradient is one matmul whose transpose flags absorb the
// transposes, so no transpose op runs.
// A gradient nobody asked for (a layer's input data) is skipped: it is a whole matmul.
TensorList MatMulGrads(const GradientContext& ctx, bool ta, bool tb) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  const Tensor& g = ctx.grad(0);
  TensorList grads(2);
  if (ctx.needs_grad(0)) {
    grads[0] = ta ? matmul(b, g, tb, true) : matmul(g, b, false, !tb);
  }
  if (ctx.needs_grad(1)) {
    grads[1] = tb ? matmul(g, a, true, ta) : matmul(a, g, !ta, false);
  }
  return grads;
}

TensorList MatMulGrad(const GradientContext& ctx) {
  return MatMulGrads(ctx, ctx.attr(MatMulAttrs::kTransposeA), ctx.attr(MatMulAttrs::kTransposeB));
}

// Sums `grad`, computed at the broadcast batch shape, over the batch dims along which the input
// of shape `shape` was broadcast, so it gets that input's shape back.
Tensor SumToBatchShape(const Tensor& grad, const Shape& shape) {
  const Shape& have = grad.shape();
  if (have == shape) return grad;
  const int extra = have.rank() - shape.rank();
  std::vector<int64_t> axes;
  for (int i = 0; i < have.rank() - 2; ++i) {
    if (i < extra || (shape[i - extra] == 1 && have[i] != 1)) axes.push_back(i);
  }
  // The reshape restores the size-1 batch dims the sum dropped (and leading ones absent in shape).
  return reshape(SumOver(grad, axes), shape);
}

TensorList BatchMatMulV2Grad(const GradientContext& ctx) {
  TensorList grads =
      MatMulGrads(ctx, ctx.attr(BatchMatMulAttrs::kAdjX), ctx.attr(BatchMatMulAttrs::kAdjY));
  for (int i = 0; i < 2; ++i) {
    if (grads[i].defined()) grads[i] = SumToBatchShape(grads[i], ctx.input_shape(i));
  }
  return grads;
}

TensorList BiasAddGrad(const GradientContext& ctx) {
  const Tensor& g = ctx.grad(0);
  std::vector<int64_t> batch_axes(g.rank() - 1);
  for (int i = 0; i + 1 < g.rank(); ++i) batch_axes[i] = i;
  return {g, SumOver(g, batch_axes)};
}

// The vector-Jacobian product of softmax (output s) along the last axis.
Tensor SoftmaxBackward(const Tensor& g, const Tensor& s) {
  return (g - SumOver(g * s, -1, /*keep_dims=*/true)) * s;
}

TensorList SoftmaxGrad(const GradientContext& ctx) {
  return {SoftmaxBackward(ctx.grad(0), ctx.output(0))};
}

TensorList LogSoftmaxGrad(const GradientContext& ctx) {
  const Tensor& g = ctx.grad(0);
  return {g - exp(ctx.output(0)) * SumOver(g, -1, /*keep_dims=*/true)};
}

// Outputs: loss = sum(labels * (logsumexp(features) - features)) per row, and backprop =
// softmax(features) - labels. Both gradients are recomputed with ops from the kept inputs rather
// than taken from the kernel's backprop output, so an enclosing tape differentiates them
// (second-order gradients). d loss / d features is softmax * sum(labels) - labels: exact also for
// labels that do not sum to 1, where TensorFlow's use of backprop would be off.
//
// Logits and labels may broadcast against each other (a label row for every batch row, or a
// class column): the gradients are computed on both broadcast to backprop's shape (adding zeros
// of the other's shape) and summed back to each input's shape.
TensorList SoftmaxCrossEntropyWithLogitsGrad(const GradientContext& ctx) {
  Tensor features = ctx.input(0);
  Tensor labels = ctx.input(1);
  const Shape& features_shape = ctx.input_shape(0);
  if (!(features_shape == ctx.input_shape(1) && features_shape.is_fully_defined())) {
    features = ctx.input(0) + zeros_like(ctx.input(1));
    labels = ctx.input(1) + zeros_like(ctx.input(0));
  }
  const Tensor s = softmax(features);
  Tensor dfeatures, dlabels;
  if (ctx.grad(0).defined()) {
    const Tensor g = expand_dims(ctx.grad(0), -1);
    dfeatures = g * (s * reduce_sum(labels, -1, /*keep_dims=*/true) - labels);
    dlabels = g * negative(log_softmax(features));
  }
  if (ctx.grad(1).defined()) {
    Accumulate(dfeatures, SoftmaxBackward(ctx.grad(1), s));
    Accumulate(dlabels, negative(ctx.grad(1)));
  }
  // Logits and labels broadcast against each other: each gets its own shape back.
  return {dfeatures.defined() ? ReduceToShape(dfeatures, ctx, 0) : dfeatures,
          dlabels.defined() ? ReduceToShape(dlabels, ctx, 1) : dlabels};
}

// As above with one-hot labels (which get no gradient: they are class indices). The op's second
// output, backprop = softmax(features) - one_hot(labels), is the loss's gradient per row: it is
// kept and scaled instead of recomputed. Higher orders still work: an enclosing tape sends what
// reaches `backprop` to this op's output 1, whose gradient (the softmax Jacobian) is below.
TensorList SparseSoftmaxCrossEntropyWithLogitsGrad(const GradientContext& ctx) {
  Tensor dfeatures;
  if (ctx.grad(0).defined()) dfeatures = expand_dims(ctx.grad(0), -1) * ctx.output(1);
  if (ctx.grad(1).defined()) {
    Accumulate(dfeatures, SoftmaxBackward(ctx.grad(1), softmax(ctx.input(0))));
  }
  return {dfeatures, Tensor()};
}

// FusedBatchNormV3. xhat = (x - mean) * inv_std comes from x and the kept reserve spaces 1 (the
// mean y used) and 2 (the variance y used; inv_std = 1 / sqrt(it + epsilon)) instead of
// recomputing the statistics with ops: that saves two reductions over x per step. Reserve space 3
// is not used: TensorFlow's CPU kernel leaves it empty, and exported training graphs must run
// there. It is correct under nested tapes because this function also differentiates the
// reserve-space outputs: an enclosing tape that differentiates this gradient sends what reaches
// reserve spaces 1 and 2 back through the forward op's entry to x (training) or to mean and
// variance (inference).
//
// Gradients of every output are handled. In training, with N values per channel and the batch
// statistics m = mean(x), v = mean((x - m)^2) (biased): batch_mean = f m + (1 - f) mean_in,
// batch_variance = f v N / (N - 1) + (1 - f) variance_in (f = exponential_avg_factor; no blend
// at f = 1, where mean_in/variance_in may be empty and get no gradient), reserve spaces m, v and
// inv_std; dm/dx = 1/N and dv/dx = 2 (x - m) / N. In inference the statistic outputs are copies
// of mean/variance (reserve space 3: their inv_std).
TensorList FusedBatchNormV3Grad(const GradientContext& ctx) {
  const DType t = ctx.input_dtype(0);
  const DType u = ctx.input_dtype(1);
  // bfloat16 x has float32 statistics: compute in float32, return dx in bfloat16.
  const auto as_u = [&](const Tensor& v) { return t == u ? v : cast(v, u); };
  const Tensor x = as_u(ctx.input(0));
  const Tensor& scale = ctx.input(1);
  const Tensor& mean = ctx.output(3);
  const Tensor inv_std = rsqrt(ctx.output(4) + scalar(ctx.attr(FusedBatchNormAttrs::kEpsilon), u));
  const Axes channel_sum{0, 1, 2};
  const bool training = ctx.attr(FusedBatchNormAttrs::kIsTraining);
  const Shape& x_shape = ctx.input_shape(0);
  const int64_t n = x_shape[0] * x_shape[1] * x_shape[2];
  const Tensor centered = x - mean;
  const auto inv_std_to_variance = [&](const Tensor& g_inv_std) {
    return g_inv_std * (inv_std * inv_std * inv_std) * scalar(-0.5, u);
  };

  Tensor dx, dscale, doffset, dmean, dvariance;
  // Gradients reaching the statistics y was normalized with (per channel).
  Tensor g_mean, g_variance;
  if (ctx.grad(0).defined()) {
    const Tensor g = as_u(ctx.grad(0));
    const Tensor xhat = centered * inv_std;
    doffset = reduce_sum(g, channel_sum);
    dscale = reduce_sum(g * xhat, channel_sum);
    if (training) {
      // The standard batch-norm backward: y's dependence on x through m and v included.
      const Tensor inv_n = scalar(1.0 / static_cast<double>(n), u);
      dx = scale * inv_std * (g - doffset * inv_n - xhat * (dscale * inv_n));
    } else {
      const Tensor scaled_inv_std = scale * inv_std;
      dx = g * scaled_inv_std;
      g_mean = negative(doffset * scaled_inv_std);
      // d/d inv_std of sum(g (x - mean)) inv_std scale is scale * dscale / inv_std.
      g_variance = scalar(-0.5, u) * scale * dscale * (inv_std * inv_std);
    }
  }
  if (training) {
    const double f = ctx.attr(FusedBatchNormAttrs::kExponentialAvgFactor);
    const double bessel = n > 1 ? static_cast<double>(n) / static_cast<double>(n - 1) : 1.0;
    if (ctx.grad(1).defined()) {
      Accumulate(g_mean, f == 1 ? ctx.grad(1) : ctx.grad(1) * scalar(f, u));
      if (f != 1) dmean = ctx.grad(1) * scalar(1 - f, u);
    }
    if (ctx.grad(2).defined()) {
      Accumulate(g_variance, ctx.grad(2) * scalar(f * bessel, u));
      if (f != 1) dvariance = ctx.grad(2) * scalar(1 - f, u);
    }
  } else {
    if (ctx.grad(1).defined()) Accumulate(g_mean, ctx.grad(1));
    if (ctx.grad(2).defined()) Accumulate(g_variance, ctx.grad(2));
  }
  if (ctx.grad(3).defined()) Accumulate(g_mean, ctx.grad(3));
  if (ctx.grad(4).defined()) Accumulate(g_variance, ctx.grad(4));
  if (ctx.grad(5).defined()) Accumulate(g_variance, inv_std_to_variance(ctx.grad(5)));

  if (training) {
    if (g_variance.defined()) {
      Accumulate(dx, centered * (g_variance * scalar(2.0 / static_cast<double>(n), u)));
    }
    if (g_mean.defined()) {
      const Tensor per_value = g_mean * scalar(1.0 / static_cast<double>(n), u);
      // Adding to dx broadcasts; alone, the per-channel term still needs x's shape.
      dx = dx.defined() ? dx + per_value : broadcast_to(per_value, x_shape);
    }
  } else {
    dmean = g_mean;
    dvariance = g_variance;
  }
  if (dx.defined() && t != u) dx = cast(dx, t);
  return {dx, dscale, doffset, dmean, dvariance};
}

// Each picked value's gradient goes back to where it was picked: dy scattered by (row, index)
// into zeros of the input's shape, rows being the input's leading dims flattened. The indices
// output gets no gradient, nor does k.
TensorList TopKV2Grad(const GradientContext& ctx) {
  const Shape& input = ctx.input_shape(0);
  const Tensor& indices = ctx.output(1);
  const int last = input.rank() - 1;
  const int64_t n = input.dim(last), k = ctx.output_shape(1).dim(last);
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= input.dim(d);
  std::vector<int64_t> row_of(rows * k);
  for (int64_t i = 0; i < rows * k; ++i) row_of[i] = i / std::max<int64_t>(k, 1);
  const Tensor row_ids = cast(from_vector(row_of, Shape{rows, k, 1}), indices.dtype());
  const Tensor nd = concat({row_ids, reshape(indices, Shape{rows, k, 1})}, 2);
  const Tensor dx = scatter_nd(nd, reshape(ctx.grad_or_zeros(0), Shape{rows, k}), Shape{rows, n});
  return {reshape(dx, input), Tensor()};
}

const GradientRegistrar kMatMulGrad("MatMul", MatMulGrad, /*keep_inputs=*/{0, 1});
const GradientRegistrar kBatchMatMulV2Grad("BatchMatMulV2", BatchMatMulV2Grad,
                                           /*keep_inputs=*/{0, 1});
const GradientRegistrar kBiasAddGrad("BiasAdd", ChannelsLastGradient<BiasAddGrad>);
const GradientRegistrar kTopKV2Grad("TopKV2", TopKV2Grad, /*keep_inputs=*/{}, /*keep_outputs=*/{1});
const GradientRegistrar kSoftmaxGrad("Softmax", SoftmaxGrad, /*keep_inputs=*/{},
                                     /*keep_outputs=*/{0});
const GradientRegistrar kLogSoftmaxGrad("LogSoftmax", LogSoftmaxGrad, /*keep_inputs=*/{},
                                        /*keep_outputs=*/{0});
const GradientRegistrar kSoftmaxCrossEntropyWithLogitsGrad("SoftmaxCrossEntropyWithLogits",
                                                           SoftmaxCrossEntropyWithLogitsGrad,
                                                           /*keep_inputs=*/{0, 1});
const GradientRegistrar kSparseSoftmaxCrossEntropyWithLogitsGrad(
    "SparseSoftmaxCrossEntropyWithLogits", SparseSoftmaxCrossEntropyWithLogitsGrad,
    /*keep_inputs=*/{0}, /*keep_outputs=*/{1});
// reserve_space_1 and 2 (the mean and variance y used); see FusedBatchNormV3Grad.
const GradientRegistrar kFusedBatchNormV3Grad("FusedBatchNormV3",
                                              ChannelsLastGradient<FusedBatchNormV3Grad>,
                                              /*keep_inputs=*/{0, 1}, /*keep_outputs=*/{3, 4});
// The fusion pass makes these for graphs that only run forward (gradients are built from the
// unfused ops first), as TensorFlow's grappler does.
const NotDifferentiable kFusedMatMul("_FusedMatMul");
const NotDifferentiable kFusedConv2D("_FusedConv2D");
const NotDifferentiable kFusedDepthwiseConv2dNative("_FusedDepthwiseConv2dNative");
// An update of a variable, like ResourceApplyGradientDescent: no outputs to differentiate.
const NotDifferentiable kMatMulApplyGradientDescent("_ResourceApplyMatMulGradientDescent");

}  // namespace
}  // namespace duet
