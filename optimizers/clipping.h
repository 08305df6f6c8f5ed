// Gradient clipping by norm: TensorFlow's tf.clip_by_global_norm.
#pragma once

#include <vector>

#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet::optimizers {

// sqrt(sum of squares of every element of every tensor); undefined tensors are skipped.
Tensor global_norm(const std::vector<Tensor>& tensors, OpSite site = {});

// Each tensor times clip_norm / max(global_norm, clip_norm): the list is scaled together so its
// global norm is at most clip_norm, directions kept (tf.clip_by_global_norm). Undefined tensors
// stay undefined.
std::vector<Tensor> clip_by_global_norm(const std::vector<Tensor>& tensors, double clip_norm,
                                        OpSite site = {});

}  // namespace duet::optimizers
