#include "io/data/element_copy.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace duet::data {
namespace {

// Copies `count` elements of `dtype` from src to dst: the one place that knows how elements are
// copied. Numbers are bytes; kString elements are std::string objects, which the destination
// tensor (made by Tensor::Empty) has constructed, so they are assigned (Note [String tensors] in
// core/tensor.cc).
void CopyRun(char* dst, const char* src, int64_t count, DType dtype) {
  if (count <= 0) return;
  if (dtype == kString) {
    std::copy_n(reinterpret_cast<const std::string*>(src), count,
                reinterpret_cast<std::string*>(dst));
    return;
  }
  std::memcpy(dst, src, static_cast<size_t>(count) * DTypeSize(dtype));
}

Shape WithoutAxis0(const Shape& shape) { return Shape(shape.dims().subspan(1)); }

Shape WithAxis0(int64_t n, const Shape& shape) {
  std::vector<int64_t> dims{n};
  dims.insert(dims.end(), shape.dims().begin(), shape.dims().end());
  return Shape(dims);
}

// Copies `src` (shape `from`, row-major) into the corner of `dst` (shape `to`, each dim at
// least from's): one memcpy per run of the last axis.
void CopyIntoCorner(const char* src, const Shape& from, char* dst, const Shape& to, DType dtype) {
  const int rank = from.rank();
  const size_t element_size = DTypeSize(dtype);
  if (rank == 0) {
    CopyRun(dst, src, 1, dtype);
    return;
  }
  if (from.num_elements() == 0) return;
  const int64_t run = from.dim(rank - 1);
  const absl::InlinedVector<int64_t, 6> dst_strides = RowMajorStrides(to);
  std::vector<int64_t> index(rank - 1, 0);  // over all axes but the last
  const int64_t runs = from.num_elements() / from.dim(rank - 1);
  for (int64_t r = 0; r < runs; ++r) {
    int64_t offset = 0;
    for (int a = 0; a < rank - 1; ++a) offset += index[a] * dst_strides[a];
    CopyRun(dst + offset * element_size, src + r * run * element_size, run, dtype);
    for (int a = rank - 2; a >= 0; --a) {  // the next index, last axis fastest
      if (++index[a] < from.dim(a)) break;
      index[a] = 0;
    }
  }
}

// Fills `count` elements at dst with the scalar `value`'s bytes.
void Fill(char* dst, int64_t count, const Tensor& value) {
  if (value.dtype() == kString) {
    std::fill_n(reinterpret_cast<std::string*>(dst), count, *value.data<std::string>());
    return;
  }
  const size_t size = DTypeSize(value.dtype());
  const char* bytes = static_cast<const char*>(value.raw_data());
  bool zero = true;
  for (size_t i = 0; i < size; ++i) zero = zero && bytes[i] == 0;
  if (zero) {
    std::memset(dst, 0, count * size);
    return;
  }
  for (int64_t i = 0; i < count; ++i) std::memcpy(dst + i * size, bytes, size);
}

}  // namespace

absl::StatusOr<Tensor> ReadableOnCpu(const Tensor& t, const std::string& what) {
  if (!t.defined()) return absl::InvalidArgumentError(absl::StrCat(what, ": an undefined tensor"));
  if (IsObjectDType(t.dtype())) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": a ", DTypeName(t.dtype()), " tensor has no elements to copy"));
  }
  if (!t.has_value() && t.num_elements() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": a symbolic tensor (graph mode) has no values"));
  }
  if (t.device().is_host()) return t;
  absl::StatusOr<Tensor> copy;
  try {
    copy = t.cpu();
  } catch (const Error& e) {
    copy = e.status();
  }
  return copy;
}

Tensor SliceRow(const Tensor& t, int64_t row) {
  Shape shape = WithoutAxis0(t.shape());
  const int64_t n = shape.num_elements();
  if (n == 0) return Tensor::Empty(t.dtype(), shape);  // no memory to point into
  // A view of the first row's size, moved to the row (kString elements are shared as well).
  Tensor view = t.ViewAs(t.dtype(), shape, t.device());
  view.impl()->data = static_cast<char*>(view.raw_data()) + row * n * DTypeSize(t.dtype());
  return view;
}

absl::StatusOr<Tensor> StackRows(absl::Span<const Tensor> rows, int64_t first_index,
                                 const std::string& what) {
  const Tensor& first = rows[0];
  for (size_t i = 1; i < rows.size(); ++i) {
    if (rows[i].dtype() != first.dtype() || rows[i].shape() != first.shape()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": element ", first_index + static_cast<int64_t>(i), " is ",
                       DTypeName(rows[i].dtype()), " ", rows[i].shape().str(), " but element ",
                       first_index, " is ", DTypeName(first.dtype()), " ", first.shape().str(),
                       " (padded_batch pads elements of different shapes)"));
    }
  }
  Tensor out =
      Tensor::Empty(first.dtype(), WithAxis0(static_cast<int64_t>(rows.size()), first.shape()));
  const int64_t n = first.num_elements();
  const size_t bytes = first.nbytes();
  char* dst = static_cast<char*>(out.raw_data());
  for (size_t i = 0; i < rows.size(); ++i) {
    CopyRun(dst + i * bytes, static_cast<const char*>(rows[i].raw_data()), n, first.dtype());
  }
  return out;
}

absl::StatusOr<Tensor> PadAndStackRows(absl::Span<const Tensor> rows, const Shape& shape,
                                       const Tensor& padding) {
  Tensor out = Tensor::Empty(rows[0].dtype(), WithAxis0(static_cast<int64_t>(rows.size()), shape));
  const size_t size = DTypeSize(out.dtype());
  char* dst = static_cast<char*>(out.raw_data());
  if (out.num_elements() == 0) return out;
  Fill(dst, out.num_elements(), padding);
  const size_t row_bytes = static_cast<size_t>(shape.num_elements()) * size;
  for (size_t i = 0; i < rows.size(); ++i) {
    CopyIntoCorner(static_cast<const char*>(rows[i].raw_data()), rows[i].shape(),
                   dst + i * row_bytes, shape, out.dtype());
  }
  return out;
}

}  // namespace duet::data
