#include "kernels/common/matmul_geometry.h"

#include "absl/strings/str_cat.h"

namespace duet {
namespace {

MatMulDims PadTo(const Shape& s, int rank) {
  MatMulDims d(rank - s.rank(), 1);
  d.insert(d.end(), s.dims().begin(), s.dims().end());
  return d;
}

}  // namespace

int64_t MatMulGeometry::batch() const {
  int64_t b = 1;
  for (int i = 0; i < rank() - 2; ++i) b *= out[i];
  return b;
}

MatMulGeometry MakeMatMulGeometry(const Shape& x, const Shape& y, const Shape& out, bool adj_x,
                                  bool adj_y) {
  MatMulGeometry g;
  g.out.assign(out.dims().begin(), out.dims().end());
  g.x = PadTo(x, g.rank());
  g.y = PadTo(y, g.rank());
  g.adj_x = adj_x;
  g.adj_y = adj_y;
  const int r = g.rank();
  g.m = out[r - 2];
  g.n = out[r - 1];
  g.k = adj_x ? g.x[r - 2] : g.x[r - 1];
  return g;
}

std::vector<int64_t> BatchOffsets(const MatMulDims& operand, const MatMulDims& out, int64_t batch) {
  const int nb = static_cast<int>(out.size()) - 2;
  MatMulDims stride(nb + 1);
  stride[nb] = operand[nb] * operand[nb + 1];  // one matrix
  for (int i = nb - 1; i >= 0; --i) stride[i] = stride[i + 1] * operand[i];
  std::vector<int64_t> offsets(batch);
  MatMulDims index(nb, 0);
  for (int64_t b = 0; b < batch; ++b) {
    int64_t offset = 0;
    for (int i = 0; i < nb; ++i) offset += operand[i] == 1 ? 0 : index[i] * stride[i + 1];
    offsets[b] = offset;
    for (int i = nb - 1; i >= 0 && ++index[i] == out[i]; --i) index[i] = 0;
  }
  return offsets;
}

absl::StatusOr<Shape> MatrixProductShape(const Shape& a, const Shape& b, bool ta, bool tb) {
  if (a.rank() != 2 || b.rank() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("a and b must be 2-D matrices, got shapes ", a.str(), " and ", b.str()));
  }
  if (a[ta ? 0 : 1] != b[tb ? 1 : 0]) {
    return absl::InvalidArgumentError(absl::StrCat(
        "inner dimensions do not match: ", a[ta ? 0 : 1], " vs ", b[tb ? 1 : 0], " (shapes ",
        a.str(), " and ", b.str(), ", transpose_a=", ta ? "true" : "false",
        ", transpose_b=", tb ? "true" : "false", ")"));
  }
  return Shape{a[ta ? 1 : 0], b[tb ? 0 : 1]};
}

}  // namespace duet
