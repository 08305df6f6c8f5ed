#include "ops/array/strided_slice_spec.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace duet {
namespace {

bool Bit(uint64_t mask, int i) { return i < 64 && ((mask >> i) & 1) != 0; }

// Where an output dim comes from: an input dim (>= 0), a new axis, or nowhere (a shrunk dim).
constexpr int kNewAxis = -1;
constexpr int kShrunk = -2;

std::string Ints(const std::vector<int64_t>& values) {
  return absl::StrCat("[", absl::StrJoin(values, ", "), "]");
}

// The number of elements from `begin` towards `end` in steps of `stride`.
int64_t RangeSize(int64_t begin, int64_t end, int64_t stride) {
  const int64_t interval = end - begin;
  if (interval == 0 || (interval < 0) != (stride < 0)) return 0;
  return interval / stride + (interval % stride != 0 ? 1 : 0);
}

}  // namespace

absl::StatusOr<StridedSliceSpec> ResolveStridedSlice(
    const Shape& input, int64_t num_entries, const std::optional<std::vector<int64_t>>& begin,
    const std::optional<std::vector<int64_t>>& end,
    const std::optional<std::vector<int64_t>>& strides, const StridedSliceMasks& masks) {
  for (const auto* values : {&begin, &end, &strides}) {
    if (*values && static_cast<int64_t>((*values)->size()) != num_entries) {
      return absl::InvalidArgumentError(absl::StrCat(
          "begin ", begin ? Ints(*begin) : "(unknown)", ", end ", end ? Ints(*end) : "(unknown)",
          " and strides ", strides ? Ints(*strides) : "(unknown)", " must have the same length"));
    }
  }
  if (num_entries > 63) {
    return absl::InvalidArgumentError(
        absl::StrCat("a slice spec has at most 63 entries, got ", num_entries));
  }
  const uint64_t ellipsis_mask = static_cast<uint64_t>(masks.ellipsis_mask);
  if ((ellipsis_mask & (ellipsis_mask - 1)) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ellipsis_mask ", masks.ellipsis_mask, " has more than one bit set: at most one ellipsis"));
  }

  // Step 1: the sparse spec, with an ellipsis implied at the end when there is none.
  const int entries = static_cast<int>(num_entries);
  int sparse_dims = entries;
  uint64_t ellipsis = ellipsis_mask;
  int new_axes_after_ellipsis = 0;
  bool ellipsis_seen = false;
  for (int i = 0; i < entries; ++i) {
    if (ellipsis_seen && Bit(masks.new_axis_mask, i)) ++new_axes_after_ellipsis;
    if (Bit(ellipsis, i)) ellipsis_seen = true;
  }
  if (!ellipsis_seen) ellipsis |= uint64_t{1} << sparse_dims++;

  // Step 2: one dense entry per input dim. Dims the ellipsis covers are full ranges of stride 1,
  // known whatever the values.
  const int rank = input.rank();
  struct Dense {
    int entry = -1;  // the sparse entry, or -1 for a dim of the ellipsis
    int64_t begin = 0, end = 0, stride = 1;
    bool begin_masked = true, end_masked = true, shrink = false;
  };
  std::vector<Dense> dense(rank);
  std::vector<int> gather;  // per output dim: its input dim, kNewAxis or kShrunk
  int full = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    if (Bit(ellipsis, i)) {
      const int next = std::min(rank - (sparse_dims - i) + 1 + new_axes_after_ellipsis, rank);
      for (; full < next; ++full) gather.push_back(full);
    } else if (Bit(masks.new_axis_mask, i)) {
      gather.push_back(kNewAxis);
    } else {
      if (full == rank) {
        return absl::InvalidArgumentError(
            absl::StrCat("entry ", i, " of the slice spec would index dim ", full,
                         ", but the input of shape ", input.str(), " has only ", rank, " dims"));
      }
      Dense& d = dense[full];
      d.entry = i;
      if (begin) d.begin = (*begin)[i];
      if (end) d.end = (*end)[i];
      if (strides) d.stride = (*strides)[i];
      d.begin_masked = Bit(masks.begin_mask, i);
      d.end_masked = Bit(masks.end_mask, i);
      d.shrink = Bit(masks.shrink_axis_mask, i);
      gather.push_back(d.shrink ? kShrunk : full);
      ++full;
    }
  }

  // Step 3: each dim's first index, stride and size, with begin and end made explicit and clamped.
  StridedSliceSpec spec;
  for (int k = 0; k < rank; ++k) {
    const Dense& d = dense[k];
    const bool from_entry = d.entry >= 0;
    const bool stride_known = !from_entry || strides.has_value();
    const bool begin_known = !from_entry || d.begin_masked || begin.has_value();
    const bool end_known = !from_entry || d.end_masked || end.has_value();
    const int64_t stride = d.stride, dim = input.dim(k);
    spec.begin.push_back(0);
    spec.strides.push_back(stride);
    if (stride_known && stride == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("strides ", Ints(*strides), " must be non-zero (entry ", d.entry, ")"));
    }
    if (!stride_known || dim < 0) {
      spec.sizes.push_back(d.shrink ? 1 : Shape::kUnknownDim);
      continue;
    }
    if (d.shrink && stride < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("entry ", d.entry, " takes a single index (shrink_axis_mask) and needs a ",
                       "positive stride, got strides ", Ints(*strides)));
    }
    if (d.shrink) {  // the begin mask does not apply: the index is begin's value
      if (!from_entry || begin.has_value()) {
        const int64_t index = d.begin < 0 ? dim + d.begin : d.begin;
        if (index < 0 || index >= dim) {
          return absl::InvalidArgumentError(absl::StrCat(
              "index ", d.begin, " of entry ", d.entry, " (shrink_axis_mask) is out of range for ",
              "dim ", k, " of size ", dim, " in shape ", input.str()));
        }
        spec.begin.back() = index;
      }
      spec.sizes.push_back(1);
      continue;
    }
    if (!begin_known || !end_known) {
      // A full range is known to hold the whole dim whatever begin and end are.
      spec.sizes.push_back(d.begin_masked && d.end_masked
                               ? RangeSize(0, stride > 0 ? dim : -dim, stride)
                               : Shape::kUnknownDim);
      continue;
    }
    // Masked ends sit at the end of the dim the stride starts or stops at; other values count
    // from the end when negative and are clamped to [0, dim] (stride > 0) or [-1, dim - 1].
    const int64_t lo = stride > 0 ? 0 : -1, hi = stride > 0 ? dim : dim - 1;
    auto canonical = [&](int64_t x, bool masked, bool is_begin) {
      if (masked) return (stride > 0) == is_begin ? lo : hi;
      const int64_t forward = x < 0 ? dim + x : x;
      return std::clamp(forward, lo, hi);
    };
    const int64_t b = canonical(d.begin, d.begin_masked, /*is_begin=*/true);
    const int64_t e = canonical(d.end, d.end_masked, /*is_begin=*/false);
    spec.begin.back() = b;
    spec.sizes.push_back(RangeSize(b, e, stride));
  }

  // Step 4: the output shape, with new axes added and shrunk dims dropped.
  for (int g : gather) {
    if (g >= 0) spec.output.push_back(spec.sizes.dim(g));
    if (g == kNewAxis) spec.output.push_back(1);
  }
  return spec;
}

}  // namespace duet
