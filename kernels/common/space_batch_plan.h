// The copies of SpaceToBatchND and BatchToSpaceND, planned for any device.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "core/shape.h"
#include "kernels/common/strided_copy_plan.h"

namespace duet {

// SpaceToBatchND of a tensor of shape `space` ([batch] + M spatial dims + the rest) with `block`
// (M sizes) and `paddings` (2M: before and after of each spatial dim): the copies from the input
// into the output, which must be zero-filled first (the padding). The output, of shape
// [prod(block) * batch] + [(space[1+i] + paddings) / block[i]] + rest, is viewed as
// [block..., batch, spatial / block..., rest]; block offset (o_1..o_M) holds the elements at
// padded positions q * block + o. One copy per block offset that reaches any input element.
// BatchToSpaceND with crops is the inverse: `space` its output's shape, `paddings` its crops, and
// each copy run the other way (InverseCopy); every element of its output is written once.
std::vector<StridedCopyPlan> SpaceToBatchCopies(const Shape& space, absl::Span<const int64_t> block,
                                                absl::Span<const int64_t> paddings);

}  // namespace duet
