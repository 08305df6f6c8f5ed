// Keras 3's regression losses (keras.losses.mean_squared_error, mean_absolute_error, huber):
// elementwise errors averaged over the last axis into per-sample losses, then reduced.
#pragma once

#include "core/tensor.h"
#include "nn/losses/reduction.h"
#include "ops/op_site.h"

namespace duet::losses {

// mean(square(labels - predictions), axis=-1), reduced. Labels are cast to the predictions'
// (floating) dtype; shapes must match up to a trailing size-1 dim (Keras'
// squeeze_or_expand_to_same_rank). Errors (duet::Error) name the loss and both dtypes and shapes.
Tensor mean_squared_error(const Tensor& labels, const Tensor& predictions,
                          Reduction reduction = Reduction::kMean, OpSite site = {});

// mean(abs(labels - predictions), axis=-1), reduced; arguments and errors as mean_squared_error.
Tensor mean_absolute_error(const Tensor& labels, const Tensor& predictions,
                           Reduction reduction = Reduction::kMean, OpSite site = {});

// The Huber loss with error e = predictions - labels: 0.5 * e^2 where |e| <= delta, else
// delta * |e| - 0.5 * delta^2, averaged over the last axis, reduced; as mean_squared_error.
Tensor huber(const Tensor& labels, const Tensor& predictions, double delta = 1.0,
             Reduction reduction = Reduction::kMean, OpSite site = {});

}  // namespace duet::losses
