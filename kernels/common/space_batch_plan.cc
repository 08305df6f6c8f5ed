#include "kernels/common/space_batch_plan.h"

#include <algorithm>

namespace duet {

std::vector<StridedCopyPlan> SpaceToBatchCopies(const Shape& space, absl::Span<const int64_t> block,
                                                absl::Span<const int64_t> paddings) {
  const int m = static_cast<int>(block.size());
  const auto space_strides = ContiguousStrides(space.dims());
  int64_t inner = 1;
  for (int d = 1 + m; d < space.rank(); ++d) inner *= space.dim(d);
  // The output as [block..., batch, q..., inner], contiguous.
  absl::InlinedVector<int64_t, 8> out_dims(block.begin(), block.end());
  out_dims.push_back(space.dim(0));
  absl::InlinedVector<int64_t, 8> q(m);
  for (int i = 0; i < m; ++i) {
    q[i] = (space.dim(1 + i) + paddings[2 * i] + paddings[2 * i + 1]) / block[i];
    out_dims.push_back(q[i]);
  }
  out_dims.push_back(inner);
  const auto out_strides = ContiguousStrides(out_dims);
  std::vector<StridedCopyPlan> plans;
  absl::InlinedVector<int64_t, 8> offset(m, 0);  // the block offset, advanced like an odometer
  int64_t num_offsets = 1;
  for (int64_t b : block) num_offsets *= b;
  for (int64_t k = 0; k < num_offsets; ++k) {
    absl::InlinedVector<int64_t, 8> dims{space.dim(0)}, src{space_strides[0]}, dst{out_strides[m]};
    int64_t src_offset = 0, dst_offset = 0;
    bool empty = false;
    for (int i = 0; i < m; ++i) {
      // The q whose padded position q * block + offset is an input element x in [0, size).
      const int64_t before = paddings[2 * i], o = offset[i], b = block[i];
      const int64_t size = space.dim(1 + i);
      const int64_t lo = before > o ? (before - o + b - 1) / b : 0;
      const int64_t last = size - 1 + before - o;
      const int64_t hi = last < 0 ? 0 : std::min(q[i], last / b + 1);
      if (lo >= hi) {
        empty = true;
        break;
      }
      dims.push_back(hi - lo);
      src.push_back(b * space_strides[1 + i]);
      dst.push_back(out_strides[m + 1 + i]);
      src_offset += (lo * b + o - before) * space_strides[1 + i];
      dst_offset += o * out_strides[i] + lo * out_strides[m + 1 + i];
    }
    if (!empty) {
      dims.push_back(inner);
      src.push_back(1);
      dst.push_back(1);
      CoalescedDims coalesced = Coalesce(dims, src, dst);
      if (!coalesced.empty) {
        plans.push_back(StridedCopyPlan{std::move(coalesced.dims), src_offset, dst_offset});
      }
    }
    for (int i = m - 1; i >= 0; --i) {
      if (++offset[i] < block[i]) break;
      offset[i] = 0;
    }
  }
  return plans;
}

}  // namespace duet
