// Axis arithmetic the CPU and CUDA kernels share: wrapping a possibly negative axis, and viewing a
// tensor as (outer, n, inner) around one axis.
#pragma once

#include <cstdint>

#include "core/shape.h"

namespace duet {

// An axis in [-rank, rank) as an index in [0, rank) (the op's shape function checked the range).
inline int WrapAxis(int64_t axis, int rank) {
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

// A row-major tensor viewed as [outer, n, inner] around one axis: `outer` is the product of the
// dims before it, `n` its size and `inner` the product of the dims after it.
struct AxisView {
  int64_t outer = 1, n = 1, inner = 1;
};

// The view of `shape` around `axis` (in [0, rank)).
inline AxisView ViewAroundAxis(const Shape& shape, int axis) {
  AxisView v;
  for (int d = 0; d < axis; ++d) v.outer *= shape.dim(d);
  v.n = shape.dim(axis);
  for (int d = axis + 1; d < shape.rank(); ++d) v.inner *= shape.dim(d);
  return v;
}

}  // namespace duet
