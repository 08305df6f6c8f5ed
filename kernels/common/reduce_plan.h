// Planning a reduction over arbitrary axes as a few passes over (outer, reduce, inner) views.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "core/tensor.h"

namespace duet {

// One pass: the data viewed as (outer, reduce, inner), row-major, reduced over the middle dim
// into (outer, inner). inner == 1 is a reduction along contiguous rows.
struct ReducePass {
  int64_t outer = 1, reduce = 1, inner = 1;
};

// The passes that reduce `dims` over the dims flagged in `reduced`, in order. Size-1 dims are
// dropped and neighbouring dims of the same kind merged first, so reducing any set of adjacent
// axes is one pass and the common cases never need more than two. No passes: nothing to reduce
// (the output equals the input). Every dim must be non-zero.
std::vector<ReducePass> PlanReduction(absl::Span<const int64_t> dims,
                                      const std::vector<bool>& reduced);

// Which dims of a rank-`rank` input the reduction's axes operand (int32 or int64, checked by the
// op's shape function; negative axes count from the back) reduces.
std::vector<bool> ReducedDims(const Tensor& axes, int rank);

}  // namespace duet
