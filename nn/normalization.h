// Normalization layers over the last axis (channels): LayerNorm and BatchNorm, with Keras'
// defaults (epsilon 1e-3, gamma ones, beta zeros; BatchNorm momentum 0.99).
#pragma once

#include <string>

#include "nn/layer.h"

namespace duet::nn {

struct NormOptions {
  double epsilon = 1e-3;
  bool center = true;  // learn beta
  bool scale = true;   // learn gamma
  // BatchNorm: the channel axis, -1 (the last) or 1 (channels-first images, Keras' axis=1; run as
  // FusedBatchNormV3 with data_format NCHW). LayerNorm normalizes over the last axis only.
  int axis = -1;
};

// (x - mean) / sqrt(variance + epsilon) * gamma + beta, the moments over the last axis of each
// example (biased variance).
class LayerNorm : public Layer {
 public:
  explicit LayerNorm(Module* parent, std::string name = "layer_normalization",
                     NormOptions options = {});
  explicit LayerNorm(NormOptions options = {});

  const Variable& gamma() const { return gamma_; }
  const Variable& beta() const { return beta_; }

 protected:
  InputSpec input_spec() const override { return {.min_rank = 1, .fixed_last_dim = true}; }
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training, OpSite site) override;

 private:
  NormOptions options_;
  Variable gamma_, beta_;
};

// Note [BatchNorm updates]: training normalizes with the batch's statistics (op
// FusedBatchNormV3, is_training) and assigns moving = moving * momentum + batch * (1 - momentum)
// in the same call, eagerly, traced or in a graph. In a graph the output depends on the
// assignments (through reads of the moving statistics after them), so a Session that fetches the
// output runs them: there is no separate update list to remember. The moving variance follows
// the op's Bessel-corrected batch variance, as TensorFlow's fused Keras layer and PyTorch do.
// Inference uses the moving statistics (FusedBatchNormV3 with is_training false, which the
// passes fold into a preceding convolution). Inputs of rank 2 are normalized as [N, 1, 1, C].
class BatchNorm : public Layer {
 public:
  explicit BatchNorm(Module* parent, std::string name = "batch_normalization",
                     double momentum = 0.99, NormOptions options = {});
  explicit BatchNorm(double momentum = 0.99, NormOptions options = {});

  const Variable& gamma() const { return gamma_; }
  const Variable& beta() const { return beta_; }
  const Variable& moving_mean() const { return moving_mean_; }
  const Variable& moving_variance() const { return moving_variance_; }

 protected:
  InputSpec input_spec() const override {
    return {.min_rank = 2, .fixed_last_dim = options_.axis == -1};
  }
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training, OpSite site) override;

 private:
  int64_t channel_axis(const Shape& shape) const {
    return options_.axis == -1 ? shape.rank() - 1 : options_.axis;
  }

  double momentum_;
  NormOptions options_;
  Variable gamma_, beta_, moving_mean_, moving_variance_;
};

using LayerNormalization = LayerNorm;
using BatchNormalization = BatchNorm;

}  // namespace duet::nn
