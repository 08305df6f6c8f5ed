// Host-side glue between duet tensors and the elementwise launchers (elementwise_launchers.h):
// the launchers' element type of a dtype, and the operand layout of a broadcasting op, planned
// with the CPU kernels' BroadcastPlan so both devices merge dims the same way.
#pragma once

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/tensor.h"
#include "kernels/cuda/math/elementwise_launchers.h"

namespace duet::cuda {

// The launchers' name for `dtype` (a value dtype, not kResource).
ElementType ElementTypeOf(DType dtype);

// The layout for `inputs` (at most three) broadcast to `output`: contiguous when every input
// holds the output's element count or a single element, else per-dim strides. Unimplemented when
// the broadcast needs more than kMaxBroadcastRank dims even after merging.
absl::StatusOr<ElementwiseLayout> MakeElementwiseLayout(absl::Span<const Tensor* const> inputs,
                                                        const Tensor& output);

}  // namespace duet::cuda
