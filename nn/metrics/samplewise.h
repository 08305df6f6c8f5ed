// Per-sample values and weights for the mean-like metrics (Keras' reduce_to_samplewise_values).
#pragma once

#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet::metrics::internal {

struct Samplewise {
  Tensor values;   // float32, rank <= 1: one value per sample (or a scalar)
  Tensor weights;  // float32 weight per sample, undefined when no sample_weight was given
};

// Keras' reduce_to_samplewise_values: casts `values` to float32; with `sample_weight`, matches
// ranks (a trailing size-1 dim), reduces value dims the weights lack, broadcasts the weights to
// the values and multiplies them in, and reduces weights of rank > 1 past the batch dim; finally
// reduces values of rank > 1 past the batch dim. `mean` picks the reduction (mean or sum).
// `metric` names the metric in errors.
Samplewise ReduceToSamplewise(const char* metric, const Tensor& values, const Tensor& sample_weight,
                              bool mean, OpSite site);

}  // namespace duet::metrics::internal
