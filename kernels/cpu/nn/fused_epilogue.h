// The fused ops' epilogue (kernels/common/fused_epilogue.h) on the CPU: inside the oneDNN matmul /
// convolution primitive (a bias memory, a sum post-op adding the residual held in dst, an eltwise
// post-op), or as a loop where oneDNN computes nothing (float64).
#pragma once

#include "core/tensor.h"
#include "core/thread_pool.h"
#include "kernels/common/fused_epilogue.h"
#include "kernels/cpu/common/dnnl_plan.h"
#include "kernels/kernel_registry.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace duet {

// Appends what a oneDNN plan with `epilogue` depends on to `key`.
void AppendEpilogueKey(const FusedEpilogue& epilogue, DnnlKey& key);

// The fused ops' residual input (args[1]), which their CPU kernels may write output 0 over
// (KernelDef::in_place_input).
inline constexpr int kResidualInput = 3;

// The primitive attr with the post-ops of `epilogue`: a sum when it adds the residual (which must
// be in dst by then: MoveResidualIntoOutput), then the activation as an eltwise post-op.
dnnl::primitive_attr EpilogueDnnlAttr(const FusedEpilogue& epilogue);

// Copies a fused op's residual (kResidualInput) into its output 0, where oneDNN's sum post-op reads
// it, unless the two share a buffer already (Note [In-place outputs] in graph/plan.cc).
void MoveResidualIntoOutput(KernelContext& ctx);

// The residual as a loop that first writes the product to output 0 reads it afterwards:
// a copy when the two share a buffer, else the input itself.
Tensor ResidualBeforeOverwrite(KernelContext& ctx);

// out[..., c] = activation(out[..., c] + bias[c] (+ residual[..., c])) in place, for a float32,
// float64 or bfloat16 `out` whose last dim has bias's length and a `residual` (when the epilogue
// adds one) of out's shape; bfloat16 computed in float32.
void ApplyFusedEpilogue(const FusedEpilogue& epilogue, const Tensor& bias, const Tensor* residual,
                        Tensor& out, ThreadPool& pool);

}  // namespace duet
