// The fused ops' epilogue (kernels/common/fused_epilogue.h) on the CPU: inside the oneDNN matmul /
// convolution primitive (a bias memory and an eltwise post-op), or as a loop where oneDNN computes
// nothing (float64).
#pragma once

#include "core/tensor.h"
#include "core/thread_pool.h"
#include "kernels/common/fused_epilogue.h"
#include "kernels/cpu/common/dnnl_plan.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace duet {

// Appends what a oneDNN plan with `epilogue` depends on to `key`.
void AppendEpilogueKey(const FusedEpilogue& epilogue, DnnlKey& key);

// The primitive attr with the activation of `epilogue` as an eltwise post-op (no post-op for
// kNone).
dnnl::primitive_attr EpilogueDnnlAttr(const FusedEpilogue& epilogue);

// out[..., c] = activation(out[..., c] + bias[c]) in place, for a float32, float64 or bfloat16
// `out` whose last dim has bias's length (bfloat16 computed in float32).
void ApplyFusedEpilogue(const FusedEpilogue& epilogue, const Tensor& bias, Tensor& out,
                        ThreadPool& pool);

}  // namespace duet
