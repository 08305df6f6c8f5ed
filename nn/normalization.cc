#include "nn/normalization.h"

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "graph/graph_context.h"
#include "nn/initializers.h"
#include "ops/array/array_ops.h"
#include "ops/execution_context.h"
#include "ops/math/math_ops.h"
#include "ops/math/operators.h"
#include "ops/nn/nn_ops.h"
#include "ops/reduction/reduction_ops.h"

namespace duet::nn {
namespace {

// gamma or beta when the layer learns it, else the constant it stands for.
Tensor ScaleOrConstant(const Variable& v, int64_t channels, double value, DType dtype,
                       OpSite site) {
  return v.defined() ? v.value(site) : fill(Shape{channels}, value, dtype);
}

// y reshaped to x's shape: by the static shape when at most one dim is unknown (so the result
// keeps the known dims in a graph), else by the dynamic one.
Tensor ReshapeLike(const Tensor& y, const Tensor& x, const OpSite& site) {
  int unknown = 0;
  for (int64_t d : x.shape().dims()) unknown += d < 0 ? 1 : 0;
  if (unknown > 1) return reshape(y, shape_of(x, kInt32, site), site);
  return reshape(y, x.shape(), site);
}

}  // namespace

LayerNorm::LayerNorm(Module* parent, std::string name, NormOptions options)
    : Layer(parent, std::move(name)), options_(options) {
  if (options_.axis != -1) {
    throw Error(absl::InvalidArgumentError("LayerNorm: axis must be -1 (the last)"));
  }
}
LayerNorm::LayerNorm(NormOptions options) : LayerNorm(nullptr, "layer_normalization", options) {}

void LayerNorm::build(const Shape& input_shape) {
  const Shape channels{input_shape.dim(input_shape.rank() - 1)};
  if (options_.scale) gamma_ = add_variable("gamma", channels, dtype(), initializers::ones());
  if (options_.center) beta_ = add_variable("beta", channels, dtype(), initializers::zeros());
}

Tensor LayerNorm::call(const Tensor& x, bool, OpSite site) {
  const int64_t last = x.rank() - 1;
  const Tensor mean = reduce_mean(x, {last}, true, site);
  const Tensor variance =
      reduce_mean(squared_difference(x, stop_gradient(mean, site), site), {last}, true, site);
  Tensor y = (x - mean) * rsqrt(variance + options_.epsilon, site);
  if (gamma_.defined()) y = y * gamma_.value(site);
  if (beta_.defined()) y = y + beta_.value(site);
  return y;
}

BatchNorm::BatchNorm(Module* parent, std::string name, double momentum, NormOptions options)
    : Layer(parent, std::move(name)), momentum_(momentum), options_(options) {
  if (options_.axis != -1 && options_.axis != 1) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("BatchNorm: axis must be -1 or 1, got ", options_.axis)));
  }
}
BatchNorm::BatchNorm(double momentum, NormOptions options)
    : BatchNorm(nullptr, "batch_normalization", momentum, options) {}

void BatchNorm::build(const Shape& input_shape) {
  const Shape channels{input_shape.dim(channel_axis(input_shape))};
  if (options_.scale) gamma_ = add_variable("gamma", channels, dtype(), initializers::ones());
  if (options_.center) beta_ = add_variable("beta", channels, dtype(), initializers::zeros());
  moving_mean_ = add_variable("moving_mean", channels, dtype(), initializers::zeros(), false);
  moving_variance_ =
      add_variable("moving_variance", channels, dtype(), initializers::ones(), false);
}

Tensor BatchNorm::call(const Tensor& x, bool training, OpSite site) {
  const int64_t channels = x.shape().dim(channel_axis(x.shape()));
  // FusedBatchNormV3 takes NHWC or NCHW; other ranks are normalized as [everything else, 1, 1, C]
  // or, channels-first, [N, C, everything else, 1].
  const bool first = options_.axis == 1 && x.rank() > 2;
  const Tensor x4 = x.rank() == 4 ? x
                    : first       ? reshape(x, Shape{x.shape().dim(0), channels, -1, 1}, site)
                                  : reshape(x, Shape{-1, 1, 1, channels}, site);
  const DType dtype = moving_mean_.dtype();
  const Tensor gamma = ScaleOrConstant(gamma_, channels, 1, dtype, site);
  const Tensor beta = ScaleOrConstant(beta_, channels, 0, dtype, site);
  const FusedBatchNormResult r =
      fused_batch_norm(x4, gamma, beta, moving_mean_.value(site), moving_variance_.value(site),
                       static_cast<float>(options_.epsilon), training,
                       first ? DataFormat::kNCHW : DataFormat::kNHWC, site);
  Tensor y = x.rank() == 4 ? r.y : ReshapeLike(r.y, x, site);
  if (!training) return y;
  // Note [BatchNorm updates].
  const double keep = momentum_;
  moving_mean_.assign(moving_mean_.value(site) * keep + r.batch_mean * (1 - keep), site);
  moving_variance_.assign(moving_variance_.value(site) * keep + r.batch_variance * (1 - keep),
                          site);
  if (executing_eagerly()) return y;
  ControlDependencies after_updates({moving_mean_.value(site), moving_variance_.value(site)});
  return identity(y, site);
}

}  // namespace duet::nn
