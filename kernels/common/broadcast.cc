#include "kernels/common/broadcast.h"

namespace duet {

BroadcastPlan MakeBroadcastPlan(absl::Span<const Shape* const> inputs, const Shape& output) {
  BroadcastPlan plan;
  plan.num_inputs = static_cast<int>(inputs.size());
  const int out_rank = output.rank();
  // Which inputs broadcast along each kept dim, as a bit mask; dims merge when masks agree.
  absl::InlinedVector<uint32_t, 6> masks;
  for (int d = 0; d < out_rank; ++d) {
    const int64_t size = output.dim(d);
    if (size == 1) continue;
    uint32_t mask = 0;
    for (int k = 0; k < plan.num_inputs; ++k) {
      const Shape& in = *inputs[k];
      const int in_d = d - (out_rank - in.rank());
      if (in_d < 0 || in.dim(in_d) == 1) mask |= 1u << k;
    }
    if (!masks.empty() && masks.back() == mask) {
      plan.dims.back() *= size;
    } else {
      masks.push_back(mask);
      plan.dims.push_back(size);
    }
  }
  // A single-element output keeps one dim of size 1 so the plan is never rank 0.
  if (plan.dims.empty()) {
    plan.dims.push_back(1);
    masks.push_back(0);
  }
  const int r = plan.rank();
  for (int k = 0; k < plan.num_inputs; ++k) {
    plan.strides[k].resize(r);
    int64_t stride = 1;
    for (int d = r - 1; d >= 0; --d) {
      const bool broadcast = masks[d] & (1u << k);
      plan.strides[k][d] = broadcast ? 0 : stride;
      if (!broadcast) stride *= plan.dims[d];
    }
  }
  return plan;
}

}  // namespace duet
