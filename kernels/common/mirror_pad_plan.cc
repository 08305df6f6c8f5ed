#include "kernels/common/mirror_pad_plan.h"

namespace duet {

std::vector<StridedCopyPlan> MirrorPadCopies(const Shape& out, absl::Span<const int64_t> paddings,
                                             bool symmetric) {
  const int rank = out.rank();
  const auto strides = ContiguousStrides(out.dims());
  const int64_t offset = symmetric ? 1 : 0;
  std::vector<StridedCopyPlan> copies;
  for (int d = 0; d < rank; ++d) {
    const int64_t before = paddings[2 * d], after = paddings[2 * d + 1];
    if (before == 0 && after == 0) continue;
    const int64_t n = out.dim(d) - before - after;
    StridedCopyPlan slab;
    int64_t base = 0;
    for (int e = 0; e < rank; ++e) {
      int64_t extent = out.dim(e);
      if (e == d) {
        extent = 1;
      } else if (e > d) {
        extent = out.dim(e) - paddings[2 * e] - paddings[2 * e + 1];
        base += paddings[2 * e] * strides[e];
      }
      slab.layout.dims.push_back(extent);
    }
    slab.layout.src = strides;
    slab.layout.dst = strides;
    auto add = [&](int64_t to, int64_t from) {
      StridedCopyPlan copy = slab;
      copy.src_offset = base + from * strides[d];
      copy.dst_offset = base + to * strides[d];
      copies.push_back(std::move(copy));
    };
    // Padded position `before - 1 - k` mirrors unpadded index k + 1 - offset; the after side
    // likewise from the last element.
    for (int64_t k = 0; k < before; ++k) add(before - 1 - k, before + k + 1 - offset);
    for (int64_t k = 0; k < after; ++k) add(before + n + k, before + n - 2 - k + offset);
  }
  return copies;
}

}  // namespace duet
