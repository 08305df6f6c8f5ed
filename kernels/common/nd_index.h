// The geometry of GatherNd and the ScatterNd family (Note [Nd indices] in
// ops/array/scatter_nd_ops.cc), shared by their CPU and CUDA kernels.
#pragma once

#include <cstdint>
#include <vector>

#include "core/shape.h"

namespace duet {

// Indices of shape batch + [depth] into `shape`: row i names slice sum_j indices[i, j] *
// strides[j] of the num_slices_in_shape slices of slice_size elements that `shape` holds.
struct NdIndexPlan {
  int depth = 0;
  int64_t num_rows = 0;          // prod(batch): the number of slices picked
  int64_t slice_size = 1;        // prod(shape[depth:])
  std::vector<int64_t> dims;     // shape[:depth]
  std::vector<int64_t> strides;  // strides[j] = prod(dims[j+1:]), in slices
};

// The plan for `indices` (rank >= 1, fully defined) into `shape`, which the shape function has
// checked against it.
inline NdIndexPlan PlanNdIndex(const Shape& indices, const Shape& shape) {
  NdIndexPlan plan;
  plan.depth = static_cast<int>(indices.dim(indices.rank() - 1));
  plan.num_rows = 1;
  for (int d = 0; d + 1 < indices.rank(); ++d) plan.num_rows *= indices.dim(d);
  for (int d = plan.depth; d < shape.rank(); ++d) plan.slice_size *= shape.dim(d);
  plan.dims.assign(shape.dims().begin(), shape.dims().begin() + plan.depth);
  plan.strides.assign(plan.depth, 1);
  for (int j = plan.depth - 2; j >= 0; --j)
    plan.strides[j] = plan.strides[j + 1] * plan.dims[j + 1];
  return plan;
}

}  // namespace duet
