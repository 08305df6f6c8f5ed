#include "kernels/cpu/array/strided_copy.h"

#include <algorithm>
#include <cstring>

namespace duet {
namespace {

// Copies one row of n elements with element strides s (source) and d (destination).
template <typename U>
void CopyRow(const U* src, int64_t s, U* dst, int64_t d, int64_t n) {
  if (s == 1 && d == 1) {
    std::memcpy(dst, src, n * sizeof(U));
  } else if (s == 0 && d == 1) {
    std::fill_n(dst, n, *src);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i * d] = src[i * s];
  }
}

// Splits the copy into units of (outer row, piece of the row): rows longer than
// kParallelCopyBytes are cut into pieces so that a single huge row still spreads over threads.
template <typename U>
void CopyCoalesced(const StridedDims& c, const U* src, U* dst, ThreadPool& pool) {
  const int r = c.rank();
  if (r == 0) {
    *dst = *src;
    return;
  }
  const int outer_rank = r - 1;
  const int64_t n = c.dims[r - 1], s = c.src[r - 1], d = c.dst[r - 1];
  int64_t outer = 1;
  for (int k = 0; k < outer_rank; ++k) outer *= c.dims[k];
  const int64_t row_bytes = n * static_cast<int64_t>(sizeof(U));
  const int64_t pieces = (row_bytes + kParallelCopyBytes - 1) / kParallelCopyBytes;
  const int64_t piece_len = (n + pieces - 1) / pieces;
  const int64_t unit_bytes = std::min(row_bytes, kParallelCopyBytes);
  const int64_t min_chunk = std::max<int64_t>(1, kParallelCopyBytes / unit_bytes);
  pool.ParallelFor(outer * pieces, min_chunk, [&](int64_t begin, int64_t end) {
    absl::InlinedVector<int64_t, 8> idx(outer_rank);
    int64_t so = 0, dof = 0, rest = begin / pieces, p = begin % pieces;
    for (int k = outer_rank - 1; k >= 0; --k) {
      idx[k] = rest % c.dims[k];
      rest /= c.dims[k];
      so += idx[k] * c.src[k];
      dof += idx[k] * c.dst[k];
    }
    for (int64_t u = begin; u < end; ++u) {
      const int64_t lo = p * piece_len, hi = std::min(n, lo + piece_len);
      if (lo < hi) CopyRow(src + so + lo * s, s, dst + dof + lo * d, d, hi - lo);
      if (++p < pieces) continue;
      p = 0;
      for (int k = outer_rank - 1; k >= 0; --k) {  // next outer row (odometer)
        so += c.src[k];
        dof += c.dst[k];
        if (++idx[k] < c.dims[k]) break;
        so -= c.src[k] * c.dims[k];
        dof -= c.dst[k] * c.dims[k];
        idx[k] = 0;
      }
    }
  });
}

}  // namespace

void StridedCopy(absl::Span<const int64_t> dims, const void* src,
                 absl::Span<const int64_t> src_strides, void* dst,
                 absl::Span<const int64_t> dst_strides, int elem_size, ThreadPool& pool) {
  const CoalescedDims c = Coalesce(dims, src_strides, dst_strides);
  if (c.empty) return;
  switch (elem_size) {
    case 1:
      return CopyCoalesced(c.dims, static_cast<const uint8_t*>(src), static_cast<uint8_t*>(dst),
                           pool);
    case 2:
      return CopyCoalesced(c.dims, static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst),
                           pool);
    case 4:
      return CopyCoalesced(c.dims, static_cast<const uint32_t*>(src), static_cast<uint32_t*>(dst),
                           pool);
    default:
      return CopyCoalesced(c.dims, static_cast<const uint64_t*>(src), static_cast<uint64_t*>(dst),
                           pool);
  }
}

void StridedCopy(const StridedCopyPlan& plan, const void* src, void* dst, int elem_size,
                 ThreadPool& pool) {
  StridedCopy(plan.layout.dims, static_cast<const char*>(src) + plan.src_offset * elem_size,
              plan.layout.src, static_cast<char*>(dst) + plan.dst_offset * elem_size,
              plan.layout.dst, elem_size, pool);
}

}  // namespace duet
