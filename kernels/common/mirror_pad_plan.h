// How MirrorPad and MirrorPadGrad index, on any device (Note [Mirror padding]).
#pragma once

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "core/shape.h"
#include "kernels/common/mirror_sources.h"
#include "kernels/common/strided_copy_plan.h"

namespace duet {

// Note [Mirror padding]: MirrorPad is a Pad copy of x into the interior of the output followed by
// the copies this returns, each within the output buffer and run in order: dim by dim, each
// padded slab along dim d is a copy of the interior slab it mirrors, over the full (already
// padded) extent of the dims before d and the interior of the dims after it. So every copy
// reads only elements written before it. REFLECT mirrors about the edge element (offset 0),
// SYMMETRIC repeats it (offset 1); the shape function has checked TensorFlow's limits
// (paddings < dim for REFLECT, <= dim for SYMMETRIC), so one reflection always suffices.
// MirrorPadGrad gathers instead: output element i of dim d sums dy at the padded positions
// MirrorSources(i) of that dim (kernels/common/mirror_sources.h), over every dim.
std::vector<StridedCopyPlan> MirrorPadCopies(const Shape& out, absl::Span<const int64_t> paddings,
                                             bool symmetric);

}  // namespace duet
