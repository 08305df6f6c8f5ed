// GatherV2's geometry, which the CPU and CUDA kernels share: params viewed as
// [batch, outer, n, inner] and indices as [batch, num_indices] around the gathered axis, for any
// batch_dims (the leading dims params and indices share; batch = 1 without them).
#pragma once

#include <cstdint>

#include "core/shape.h"

namespace duet {

// out[b, o, m, :] = params[b, o, indices[b, m], :], the output viewed as [batch, outer,
// num_indices, inner].
struct GatherGeometry {
  int64_t batch = 1, outer = 1, n = 1, inner = 1, num_indices = 1;
};

// The geometry of a GatherV2 of `params` by `indices` along `axis` (in [0, rank)) with
// `batch_dims` (negative counts from indices' rank); the shape function checked both.
inline GatherGeometry MakeGatherGeometry(const Shape& params, const Shape& indices, int axis,
                                         int64_t batch_dims) {
  const int b = static_cast<int>(batch_dims < 0 ? batch_dims + indices.rank() : batch_dims);
  GatherGeometry g;
  for (int d = 0; d < b; ++d) g.batch *= params.dim(d);
  for (int d = b; d < axis; ++d) g.outer *= params.dim(d);
  g.n = params.dim(axis);
  for (int d = axis + 1; d < params.rank(); ++d) g.inner *= params.dim(d);
  for (int d = b; d < indices.rank(); ++d) g.num_indices *= indices.dim(d);
  return g;
}

}  // namespace duet
