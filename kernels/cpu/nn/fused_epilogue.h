// The fused ops' epilogue (kernels/common/fused_epilogue.h) on the CPU: inside the oneDNN matmul /
// convolution primitive (a bias memory, a binary-add post-op reading the residual, an eltwise
// post-op), or as a loop where oneDNN computes nothing (float64).
#pragma once

#include <unordered_map>

#include "core/tensor.h"
#include "core/thread_pool.h"
#include "kernels/common/fused_epilogue.h"
#include "kernels/cpu/common/dnnl_plan.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace duet {

// Appends what a oneDNN plan with `epilogue` depends on to `key`.
void AppendEpilogueKey(const FusedEpilogue& epilogue, DnnlKey& key);

// The plan buffer slot (and oneDNN arg) of the residual: src 1 of the first post-op.
inline constexpr int kResidualArg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1;

// The primitive attr with the post-ops of `epilogue` for a primitive writing `dst`: a binary add
// of the residual (laid out as `dst`) when it adds one, then the activation as an eltwise
// post-op.
dnnl::primitive_attr EpilogueDnnlAttr(const FusedEpilogue& epilogue, const dnnl::memory::desc& dst);

// Declares the residual's buffer (kResidualArg, laid out as `dst`) and adds it to a step's
// `args`, when `epilogue` adds one.
void AddResidualBuffer(const FusedEpilogue& epilogue, const dnnl::memory::desc& dst, DnnlPlan& p,
                       std::unordered_map<int, dnnl::memory>& args);

// out[..., c] = activation(out[..., c] + bias[c] (+ residual[..., c])) in place, for a float32,
// float64 or bfloat16 `out` whose last dim has bias's length and a `residual` (when the epilogue
// adds one) of out's shape; bfloat16 computed in float32.
void ApplyFusedEpilogue(const FusedEpilogue& epilogue, const Tensor& bias, const Tensor* residual,
                        Tensor& out, ThreadPool& pool);

}  // namespace duet
