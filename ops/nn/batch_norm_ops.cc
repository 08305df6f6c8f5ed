// FusedBatchNormV3: batch normalization of NHWC images, inference or training form.
//
// Outputs (TensorFlow's order): y; batch_mean and batch_variance (training: batch statistics,
// the variance Bessel-corrected, blended with the given mean/variance by exponential_avg_factor;
// inference: the given mean/variance); reserve_space_1 = the mean y was normalized with;
// reserve_space_2 = the variance y was normalized with (biased batch variance in training);
// reserve_space_3 = 1 / sqrt(reserve_space_2 + epsilon). The gradient (FusedBatchNormGradV3)
// needs x, scale and the reserve spaces.
#include "absl/strings/str_cat.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/nn_ops.h"
#include "ops/nn/window_shape.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

// float32 statistics for float32/bfloat16 x, float64 for float64 x.
absl::Status CheckStatDType(DType t, DType u) {
  const DType want = t == kFloat64 ? kFloat64 : kFloat32;
  if (u == want) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("scale, offset, mean and variance must be ",
                                                 DTypeName(want), " for ", DTypeName(t), " x, got ",
                                                 DTypeName(u)));
}

// Whether a channel vector may have no elements: mean and variance may, in training when
// exponential_avg_factor is 1 (nothing to blend).
enum class EmptyVector { kAllowed, kRejected };

// Checks that input `i` (scale, offset, mean or variance) is 1-D with `channels` elements.
absl::Status CheckChannelVector(const ShapeContext& ctx, int i, absl::string_view name,
                                int64_t channels, EmptyVector empty) {
  const Shape& s = ctx.input_shape(i);
  if (s.unknown_rank()) return absl::OkStatus();
  const bool ok = s.rank() == 1 && (s[0] < 0 || channels < 0 || s[0] == channels ||
                                    (empty == EmptyVector::kAllowed && s[0] == 0));
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(name, " must be 1-D with ", channels, " elements (the channel count of x ",
                   ctx.input_shape(0).str(), "), got shape ", s.str()));
}

absl::Status FusedBatchNormShape(ShapeContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  DUET_RETURN_IF_ERROR(
      CheckStatDType(ctx.attr(FusedBatchNormAttrs::kT), ctx.attr(FusedBatchNormAttrs::kU)));
  if (!x.unknown_rank() && x.rank() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("x must be 4-D (batch, height, width, channels), got shape ", x.str()));
  }
  const float factor = ctx.attr(FusedBatchNormAttrs::kExponentialAvgFactor);
  const bool training = ctx.attr(FusedBatchNormAttrs::kIsTraining);
  if (ctx.attr(FusedBatchNormAttrs::kEpsilon) < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("epsilon must be >= 0, got ", ctx.attr(FusedBatchNormAttrs::kEpsilon)));
  }
  const int64_t channels = x.unknown_rank() ? -1 : x[3];
  const EmptyVector stats =
      training && factor == 1.0f ? EmptyVector::kAllowed : EmptyVector::kRejected;
  DUET_RETURN_IF_ERROR(CheckChannelVector(ctx, 1, "scale", channels, EmptyVector::kRejected));
  DUET_RETURN_IF_ERROR(CheckChannelVector(ctx, 2, "offset", channels, EmptyVector::kRejected));
  DUET_RETURN_IF_ERROR(CheckChannelVector(ctx, 3, "mean", channels, stats));
  DUET_RETURN_IF_ERROR(CheckChannelVector(ctx, 4, "variance", channels, stats));
  const DType u = ctx.attr(FusedBatchNormAttrs::kU);
  ctx.set_output(0, ctx.output(0).dtype, x);
  for (int i = 1; i < 6; ++i) ctx.set_output(i, u, Shape{channels});
  return absl::OkStatus();
}

const OpDef* const kFusedBatchNormV3 =
    OpDefBuilder("FusedBatchNormV3")
        .Input("x", "T")
        .Input("scale", "U")
        .Input("offset", "U")
        .Input("mean", "U")
        .Input("variance", "U")
        .Output("y", "T")
        .Output("batch_mean", "U")
        .Output("batch_variance", "U")
        .Output("reserve_space_1", "U")
        .Output("reserve_space_2", "U")
        .Output("reserve_space_3", "U")
        .TypeAttr(FusedBatchNormAttrs::kT, {kFloat32, kFloat64, kBFloat16})
        .TypeAttr(FusedBatchNormAttrs::kU, {kFloat32, kFloat64})
        .FloatAttr(FusedBatchNormAttrs::kEpsilon, 0.0001f)
        .FloatAttr(FusedBatchNormAttrs::kExponentialAvgFactor, 1.0f)
        .StringAttr(FusedBatchNormAttrs::kDataFormat, "NHWC", {"NHWC", "NCHW"})
        .ChannelsFirst({"x"}, {}, {"y"})
        .BoolAttr(FusedBatchNormAttrs::kIsTraining, true)
        .Doc("Batch normalization of NHWC x per channel, with given or batch statistics.")
        .SetShapeFn(FusedBatchNormShape)
        .Register();

}  // namespace

FusedBatchNormResult fused_batch_norm(const Tensor& x, const Tensor& scale, const Tensor& offset,
                                      const Tensor& mean, const Tensor& variance, float epsilon,
                                      bool is_training, OpSite site) {
  OpCall call(kFusedBatchNormV3, {x, scale, offset, mean, variance}, site);
  call.set(FusedBatchNormAttrs::kEpsilon, epsilon);
  call.set(FusedBatchNormAttrs::kIsTraining, is_training);
  OutputList out = RunOp(call);
  return {out[0], out[1], out[2], out[3], out[4], out[5]};
}

FusedBatchNormResult fused_batch_norm(const Tensor& x, const Tensor& scale, const Tensor& offset,
                                      const Tensor& mean, const Tensor& variance, float epsilon,
                                      bool is_training, DataFormat format, OpSite site) {
  OpCall call(kFusedBatchNormV3, {x, scale, offset, mean, variance}, site);
  call.set(FusedBatchNormAttrs::kEpsilon, epsilon);
  call.set(FusedBatchNormAttrs::kIsTraining, is_training);
  UseDataFormat(call, format);
  OutputList out = RunOp(call);
  return {out[0], out[1], out[2], out[3], out[4], out[5]};
}

}  // namespace duet
