// Ops written in terms of other ops: dropout, clip_by_norm and batch normalization's
// convenience forms. They need no kernels or gradients of their own.
#pragma once

#include <vector>

#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet {

// Zeroes each element with probability `rate` and scales the rest by 1 / (1 - rate), so the
// expectation is unchanged (tf.nn.dropout). The mask is drawn from random_uniform with `seed`:
// the same seed drops the same elements. rate must be in [0, 1); rate 0 returns x.
Tensor dropout(const Tensor& x, double rate, int64_t seed, OpSite site = {});

// Rescales t so its L2 norm over `axes` (all axes when empty) is at most clip_norm
// (tf.clip_by_norm); a zero tensor stays zero.
Tensor clip_by_norm(const Tensor& t, double clip_norm, std::vector<int64_t> axes = {},
                    OpSite site = {});

// Inference batch normalization over the last axis (channels): (x - mean) / sqrt(variance +
// epsilon) * scale + offset, with per-channel mean/variance/offset/scale of shape (C,). Any rank
// >= 1; runs the FusedBatchNormV3 kernel (oneDNN) by viewing x as (N, 1, 1, C).
Tensor batch_norm(const Tensor& x, const Tensor& mean, const Tensor& variance, const Tensor& offset,
                  const Tensor& scale, double epsilon = 1e-3, OpSite site = {});

// Training batch normalization over the last axis: normalizes with the statistics of the batch
// (all axes but the last) and returns them; batch_variance is the unbiased (Bessel-corrected)
// variance, for moving averages, as in TensorFlow.
struct BatchNormTraining {
  Tensor y;
  Tensor batch_mean;
  Tensor batch_variance;
};
BatchNormTraining batch_norm_training(const Tensor& x, const Tensor& offset, const Tensor& scale,
                                      double epsilon = 1e-3, OpSite site = {});

}  // namespace duet
