// What the CPU and CUDA matmul kernels (MatMul, BatchMatMulV2, _FusedMatMul,
// _ResourceApplyMatMulGradientDescent) share: the product's sizes with batch dims broadcast, where
// each output batch's operand matrices start, and the checked shape of a 2-D product.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "core/shape.h"

namespace duet {

using MatMulDims = absl::InlinedVector<int64_t, 6>;

// One (batch) matmul op(x) x op(y) into `out`: operand dims as stored, left-padded with 1s to the
// output's rank; op transposes the last two dims when adj_x / adj_y. Each product is [m, k] x
// [k, n].
struct MatMulGeometry {
  MatMulDims x, y, out;
  bool adj_x = false, adj_y = false;
  int64_t m = 0, k = 0, n = 0;

  int rank() const { return static_cast<int>(out.size()); }
  // The number of matrices in the output: the product of its batch dims.
  int64_t batch() const;
};

// The geometry of op(x) x op(y) with output shape `out` (the op's shape function checked that the
// shapes fit together, batch dims broadcasting).
MatMulGeometry MakeMatMulGeometry(const Shape& x, const Shape& y, const Shape& out, bool adj_x,
                                  bool adj_y);

// Element offset of each of the `batch` output matrices' operand within an operand with (padded)
// dims `operand`, whose batch dims of size 1 broadcast.
std::vector<int64_t> BatchOffsets(const MatMulDims& operand, const MatMulDims& out, int64_t batch);

// The shape of op(a) x op(b) for 2-D `a` and `b` (transposed by `ta`, `tb`), or InvalidArgument
// naming both shapes when they are not matrices or their inner dims differ.
absl::StatusOr<Shape> MatrixProductShape(const Shape& a, const Shape& b, bool ta, bool tb);

}  // namespace duet
