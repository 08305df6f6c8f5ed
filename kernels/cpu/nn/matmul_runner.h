// The CPU matmul behind MatMul, BatchMatMulV2 and _FusedMatMul: oneDNN's matmul primitive for
// float32 and bfloat16 (it broadcasts batch dims and reads transposed operands through strides, so
// no copies; bfloat16 in float32 where the CPU lacks it, Note [Reduced precision without oneDNN
// support] in kernels/cpu/common/dnnl_plan.cc), Eigen for float64, which oneDNN 2.6 lacks on CPUs.
#pragma once

#include "absl/status/status.h"
#include "kernels/common/fused_epilogue.h"
#include "kernels/kernel_registry.h"

namespace duet {

// Sets ctx's output 0 (allocated with the product's shape) to op(input 0) x op(input 1) over the
// last two dims, batch dims broadcast, op transposing the last two dims when adj_x / adj_y. With an
// `epilogue`, then adds input 2 (the bias, along the last dim), input 3 when it adds a residual,
// and applies its activation: inside the oneDNN primitive, or as a loop after the float64
// product.
absl::Status RunMatMul(KernelContext& ctx, bool adj_x, bool adj_y,
                       const FusedEpilogue* epilogue = nullptr);

// value -= alpha * op(a) x op(b) for 2-D a and b, value of the product's shape [m, n] and all
// three of one dtype (float32 or float64). In place: value is oneDNN's destination with a sum
// post-op adding what it held, so the product is never stored on its own; -alpha is folded into
// one operand: scaled in place when the caller lets it be overwritten (`a_is_scratch`,
// `b_is_scratch`; the smaller such), else the smaller one copied into a per-thread buffer. The plan
// is cached per shape, not per alpha. Eigen for float64. The caller owns copy-on-write.
absl::Status MatMulSubtractScaled(const Tensor& a, const Tensor& b, bool adj_a, bool adj_b,
                                  double alpha, Tensor& value, bool a_is_scratch = false,
                                  bool b_is_scratch = false);

}  // namespace duet
