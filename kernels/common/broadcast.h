// NumPy broadcasting as memory strides: how each input of an elementwise op is addressed while
// walking the output, with dims that broadcast the same way merged so the inner loop runs over
// the longest contiguous run possible.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "core/shape.h"

namespace duet {

// The most inputs a plan covers (SelectV2 has three).
inline constexpr int kMaxBroadcastInputs = 3;

// Output dims with size-1 dims dropped and neighbours that broadcast alike merged, and per input
// the element stride along each of them (0 where the input is broadcast). Every dim is > 1, so at
// least one input has a non-zero stride on each.
struct BroadcastPlan {
  int num_inputs = 0;
  absl::InlinedVector<int64_t, 6> dims;
  std::array<absl::InlinedVector<int64_t, 6>, kMaxBroadcastInputs> strides;

  int rank() const { return static_cast<int>(dims.size()); }
  // Input k's stride along the innermost dim: 1 (walks along) or 0 (repeats one element).
  int64_t inner_stride(int k) const { return strides[k].back(); }
};

// The plan for `inputs` (at most kMaxBroadcastInputs) broadcast to `output`, which must be their
// NumPy broadcast (shape functions check that before any kernel runs) with at least one element.
BroadcastPlan MakeBroadcastPlan(absl::Span<const Shape* const> inputs, const Shape& output);

// Walks output elements [begin, end) of `plan` as runs that stay within one innermost row and
// calls row(offsets, out_pos, len) for each: offsets[k] is input k's element offset of the run's
// first element, out_pos the run's first output element. Threads call it on disjoint ranges.
template <typename RowFn>
void ForEachRow(const BroadcastPlan& plan, int64_t begin, int64_t end, RowFn&& row) {
  const int r = plan.rank();
  const int k_inputs = plan.num_inputs;
  const int64_t inner = plan.dims[r - 1];
  // Odometer over the outer dims, and each input's offset of the current row's first element.
  absl::InlinedVector<int64_t, 6> index(r, 0);
  std::array<int64_t, kMaxBroadcastInputs> base = {};
  int64_t rest = begin / inner;
  for (int d = r - 2; d >= 0; --d) {
    index[d] = rest % plan.dims[d];
    rest /= plan.dims[d];
    for (int k = 0; k < k_inputs; ++k) base[k] += index[d] * plan.strides[k][d];
  }
  int64_t col = begin % inner;
  std::array<int64_t, kMaxBroadcastInputs> offsets = {};
  for (int64_t pos = begin; pos < end;) {
    const int64_t len = std::min(inner - col, end - pos);
    for (int k = 0; k < k_inputs; ++k) offsets[k] = base[k] + col * plan.strides[k][r - 1];
    row(offsets, pos, len);
    pos += len;
    col = 0;
    for (int d = r - 2; d >= 0; --d) {
      for (int k = 0; k < k_inputs; ++k) base[k] += plan.strides[k][d];
      if (++index[d] < plan.dims[d]) break;
      for (int k = 0; k < k_inputs; ++k) base[k] -= plan.strides[k][d] * plan.dims[d];
      index[d] = 0;
    }
  }
}

}  // namespace duet
