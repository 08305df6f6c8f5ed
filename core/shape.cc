#include "core/shape.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace duet {

Shape Shape::UnknownRank() {
  Shape s;
  s.unknown_rank_ = true;
  return s;
}

Shape Shape::Unknown(int rank) {
  if (rank < 0) return UnknownRank();
  const absl::InlinedVector<int64_t, 6> dims(rank, kUnknownDim);
  return Shape(dims);
}

bool Shape::is_fully_defined() const {
  if (unknown_rank_) return false;
  for (int64_t d : dims_) {
    if (d < 0) return false;
  }
  return true;
}

int64_t Shape::num_elements() const {
  if (!is_fully_defined()) return -1;
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

std::string Shape::str() const {
  if (unknown_rank_) return "<unknown>";
  std::string out = "(";
  for (int i = 0; i < rank(); ++i) {
    if (i > 0) out += ", ";
    out += dims_[i] < 0 ? std::string("None") : absl::StrCat(dims_[i]);
  }
  if (rank() == 1) out += ",";
  return out + ")";
}

bool Shape::IsCompatibleWith(const Shape& other) const {
  if (unknown_rank_ || other.unknown_rank_) return true;
  if (rank() != other.rank()) return false;
  for (int i = 0; i < rank(); ++i) {
    if (dims_[i] >= 0 && other.dims_[i] >= 0 && dims_[i] != other.dims_[i]) return false;
  }
  return true;
}

Shape Shape::MostSpecificCompatible(const Shape& other) const {
  if (unknown_rank_ || other.unknown_rank_ || rank() != other.rank()) return UnknownRank();
  Shape result = *this;
  for (int i = 0; i < rank(); ++i) {
    if (dims_[i] != other.dims_[i]) result.dims_[i] = kUnknownDim;
  }
  return result;
}

Shape Shape::Merge(const Shape& other) const {
  if (unknown_rank_) return other;
  if (other.unknown_rank_ || rank() != other.rank()) return *this;
  Shape result = *this;
  for (int i = 0; i < rank(); ++i) {
    if (result.dims_[i] < 0) result.dims_[i] = other.dims_[i];
  }
  return result;
}

absl::StatusOr<Shape> BroadcastShapes(const Shape& a, const Shape& b) {
  if (a.unknown_rank() || b.unknown_rank()) return Shape::UnknownRank();
  const int rank = std::max(a.rank(), b.rank());
  absl::InlinedVector<int64_t, 6> dims(rank);
  for (int i = 0; i < rank; ++i) {
    const int ia = a.rank() - rank + i, ib = b.rank() - rank + i;
    const int64_t da = ia >= 0 ? a.dim(ia) : 1;
    const int64_t db = ib >= 0 ? b.dim(ib) : 1;
    if (da == db || db == 1) {
      dims[i] = da;
    } else if (da == 1) {
      dims[i] = db;
    } else if (da < 0 || db < 0) {
      dims[i] = da < 0 ? db : da;  // the known size wins; the run checks it
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("incompatible shapes for broadcasting: ", a.str(), " and ", b.str()));
    }
  }
  return Shape(dims);
}

absl::StatusOr<int> NormalizeAxis(int64_t axis, int rank) {
  if (axis < -rank || axis >= std::max(rank, 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis ", axis, " is out of range for a tensor of rank ", rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

absl::InlinedVector<int64_t, 6> RowMajorStrides(const Shape& shape) {
  absl::InlinedVector<int64_t, 6> strides(shape.rank());
  int64_t s = 1;
  for (int i = shape.rank() - 1; i >= 0; --i) {
    strides[i] = s;
    s *= shape.dim(i);
  }
  return strides;
}

std::string IndexString(int64_t flat, const Shape& shape) {
  if (shape.rank() == 0) return "";
  std::vector<int64_t> index(shape.rank());
  for (int d = shape.rank() - 1; d >= 0; --d) {
    index[d] = flat % shape.dim(d);
    flat /= shape.dim(d);
  }
  return absl::StrCat("[", absl::StrJoin(index, ", "), "]");
}

absl::StatusOr<BroadcastReduction> BroadcastGradientAxes(absl::Span<const int64_t> s0,
                                                         absl::Span<const int64_t> s1) {
  const size_t rank = std::max(s0.size(), s1.size());
  const bool same = s0 == s1;
  BroadcastReduction r;
  for (size_t i = 0; i < rank; ++i) {
    // Dims aligned from the right; a missing leading dim acts as 1.
    const int64_t a = i + s0.size() >= rank ? s0[i + s0.size() - rank] : 1;
    const int64_t b = i + s1.size() >= rank ? s1[i + s1.size() - rank] : 1;
    if (a != b && a != 1 && b != 1) {
      return absl::InvalidArgumentError(absl::StrCat("shapes [", absl::StrJoin(s0, ", "), "] and [",
                                                     absl::StrJoin(s1, ", "),
                                                     "] do not broadcast together"));
    }
    // Note [Broadcast axes of size 1]: as TensorFlow's BCast, an axis where both dims are 1 is
    // listed for both operands unless the shapes are equal (summing over it changes nothing, but
    // graphs exported from TensorFlow may rely on the lists).
    const bool both_one = a == 1 && b == 1 && !same;
    if ((a == 1 && b != 1) || both_one) r.axes0.push_back(static_cast<int64_t>(i));
    if ((b == 1 && a != 1) || both_one) r.axes1.push_back(static_cast<int64_t>(i));
  }
  return r;
}

}  // namespace duet
