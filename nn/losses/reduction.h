// Reduction: how a loss turns its per-sample values into what it returns (Keras' `reduction`).
#pragma once

#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet::losses {

// kNone returns the per-sample losses, kSum their sum and kMean their mean over every element
// (Keras' "sum_over_batch_size", its default).
enum class Reduction { kNone, kSum, kMean };

// `per_sample` reduced as `reduction` says; a scalar for kSum and kMean.
Tensor reduce_loss(const Tensor& per_sample, Reduction reduction, OpSite site = {});

}  // namespace duet::losses
