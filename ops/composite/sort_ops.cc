#include "ops/composite/sort_ops.h"

#include <numeric>

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "ops/array/where_op.h"
#include "ops/math/math_ops.h"
#include "ops/nn/nn_ops.h"

namespace duet {
namespace {

[[noreturn]] void Fail(absl::string_view op, const OpSite& site, absl::string_view message) {
  throw Error(absl::InvalidArgumentError(absl::StrCat(op, " (", site.str(), "): ", message)));
}

// The axis in [0, rank), or an error naming the op.
int64_t Axis(absl::string_view op, const Tensor& x, int64_t axis, const OpSite& site) {
  const Shape& shape = x.shape();
  if (shape.unknown_rank()) Fail(op, site, "x must have a known rank");
  const int64_t rank = shape.rank();
  if (axis < -rank || axis >= rank || rank == 0) {
    Fail(op, site, absl::StrCat("axis ", axis, " is out of range for x of shape ", shape.str()));
  }
  return axis < 0 ? axis + rank : axis;
}

// The permutation that swaps `axis` and the last dim (its own inverse).
std::vector<int64_t> SwapWithLast(int64_t rank, int64_t axis) {
  std::vector<int64_t> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[axis], perm[rank - 1]);
  return perm;
}

// TopKV2 over the whole of `axis`: (values, indices) in descending order of `keys`.
TopKResult SortAlong(absl::string_view op, const Tensor& x, int64_t axis, bool descending,
                     const OpSite& site) {
  const int64_t d = Axis(op, x, axis, site);
  const int64_t rank = x.shape().rank();
  const int64_t n = x.shape().dim(d);
  if (n < 0) Fail(op, site, absl::StrCat("the sorted axis of ", x.shape().str(), " is unknown"));
  const bool last = d == rank - 1;
  const std::vector<int64_t> perm = SwapWithLast(rank, d);
  Tensor keys = last ? x : transpose(x, perm, site);
  if (!descending) keys = negative(keys, site);
  TopKResult sorted = top_k(keys, n, /*sorted=*/true, kInt32, site);
  if (!descending) sorted.values = negative(sorted.values, site);
  if (!last) {
    sorted.values = transpose(sorted.values, perm, site);
    sorted.indices = transpose(sorted.indices, perm, site);
  }
  return sorted;
}

}  // namespace

Tensor sort(const Tensor& x, int64_t axis, bool descending, OpSite site) {
  return SortAlong("sort", x, axis, descending, site).values;
}

Tensor argsort(const Tensor& x, int64_t axis, bool descending, OpSite site) {
  return SortAlong("argsort", x, axis, descending, site).indices;
}

Tensor boolean_mask(const Tensor& x, const Tensor& mask, int64_t axis, OpSite site) {
  const Shape& xs = x.shape();
  const Shape& ms = mask.shape();
  if (mask.dtype() != kBool) {
    Fail("boolean_mask", site, absl::StrCat("mask must be bool, not ", DTypeName(mask.dtype())));
  }
  if (xs.unknown_rank() || ms.unknown_rank() || ms.rank() == 0) {
    Fail("boolean_mask", site, "x and mask need known ranks, and mask at least one dim");
  }
  const int64_t k = ms.rank();
  if (axis < 0) axis += xs.rank();
  if (axis < 0 || axis + k > xs.rank()) {
    Fail("boolean_mask", site,
         absl::StrCat("a mask of shape ", ms.str(), " at axis ", axis, " does not fit x of shape ",
                      xs.str()));
  }
  for (int64_t i = 0; i < k; ++i) {
    const int64_t a = xs.dim(axis + i), b = ms.dim(i);
    if (a >= 0 && b >= 0 && a != b) {
      Fail("boolean_mask", site,
           absl::StrCat("mask of shape ", ms.str(), " does not match dims ", axis, "..",
                        axis + k - 1, " of x of shape ", xs.str()));
    }
  }
  // x with the masked dims flattened: shape x[:axis] + [-1] + x[axis + k:].
  const Tensor dims = shape_of(x, kInt64, site);
  std::vector<Tensor> parts;
  if (axis > 0) parts.push_back(slice(dims, {0}, {axis}, site));
  parts.push_back(constant(std::vector<int64_t>{-1}, Shape({1})));
  if (axis + k < xs.rank()) parts.push_back(slice(dims, {axis + k}, {-1}, site));
  const Tensor flat = reshape(x, concat(parts, 0, site), site);
  const Tensor picked = reshape(where_indices(reshape(mask, {-1}, site), site), {-1}, site);
  return gather(flat, picked, axis, site);
}

}  // namespace duet
