// Tensor shapes: a list of dimension sizes, where -1 marks a size not known until run time.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace duet {

// A shape: rank and dims. Dims are >= 0, or kUnknownDim (-1) in graphs where the size is only
// known at run time. A shape may also have unknown rank (graph placeholders without a shape).
class Shape {
 public:
  static constexpr int64_t kUnknownDim = -1;

  Shape() = default;  // a scalar: rank 0
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(absl::Span<const int64_t> dims) : dims_(dims.begin(), dims.end()) {}
  static Shape UnknownRank();
  // `rank` dims, all unknown; a negative rank means unknown rank.
  static Shape Unknown(int rank);

  int rank() const { return static_cast<int>(dims_.size()); }
  bool unknown_rank() const { return unknown_rank_; }
  int64_t dim(int i) const { return dims_[i]; }
  int64_t operator[](int i) const { return dims_[i]; }
  absl::Span<const int64_t> dims() const { return dims_; }
  void set_dim(int i, int64_t size) { dims_[i] = size; }
  void push_back(int64_t size) { dims_.push_back(size); }

  // True when the rank and every dim are known.
  bool is_fully_defined() const;
  // Product of dims (1 for a scalar); -1 when not fully defined.
  int64_t num_elements() const;
  // Python tuple style: "()", "(4,)", "(2, 3)", unknown dims as "None", unknown rank "<unknown>".
  std::string str() const;

  // True when both shapes could describe the same tensor (unknown dims match anything).
  bool IsCompatibleWith(const Shape& other) const;
  // The most specific shape both shapes are instances of: dims that differ become unknown, and
  // ranks that differ an unknown rank (the shape of a value that is one or the other).
  Shape MostSpecificCompatible(const Shape& other) const;
  // The most specific shape of a value both shapes describe (unknown dims filled from the other
  // side); only meaningful for compatible shapes (check IsCompatibleWith first).
  Shape Merge(const Shape& other) const;

  friend bool operator==(const Shape& a, const Shape& b) {
    return a.unknown_rank_ == b.unknown_rank_ && a.dims_ == b.dims_;
  }
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }

 private:
  absl::InlinedVector<int64_t, 6> dims_;
  bool unknown_rank_ = false;
};

// NumPy broadcasting of two shapes: dims are aligned from the right; sizes must match or be 1.
// Unknown dims broadcast to unknown unless the other side fixes them.
absl::StatusOr<Shape> BroadcastShapes(const Shape& a, const Shape& b);

// For shapes s0 and s1 that broadcast together, the axes of their broadcast shape along which
// each was broadcast: what a gradient is summed over to undo the broadcast (TensorFlow's
// BroadcastGradientArgs). As in TensorFlow, an axis where both are 1 counts for both unless
// s0 == s1 (Note [Broadcast axes of size 1] in core/shape.cc). InvalidArgument if they do not
// broadcast.
struct BroadcastReduction {
  std::vector<int64_t> axes0, axes1;
};
absl::StatusOr<BroadcastReduction> BroadcastGradientAxes(absl::Span<const int64_t> s0,
                                                         absl::Span<const int64_t> s1);

// Wraps a possibly negative axis into [0, rank); an error names the axis and rank.
absl::StatusOr<int> NormalizeAxis(int64_t axis, int rank);

// Row-major strides (in elements) of a shape with known dims.
absl::InlinedVector<int64_t, 6> RowMajorStrides(const Shape& shape);

// The multi-index of row-major element `flat` of `shape`, as "[1, 0]" ("" for a scalar): for
// errors that name an element ("indices[1, 0] = 7 is not in [0, 5)").
std::string IndexString(int64_t flat, const Shape& shape);

}  // namespace duet
