// Axes: which dims a reduction reduces, written the way callers think of them.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

#include "core/tensor.h"

namespace duet {

// The `axis` argument of the reduce_* functions. Implicit from:
//   nothing or {}       all axes (tf.reduce_sum(x, axis=None))
//   1, -1               one axis
//   {0, 2}              several axes
//   std::vector         several axes; an empty vector reduces no axis (the input comes back)
//   Tensor              a 0-D or 1-D int32/int64 tensor (e.g. computed in a graph)
// Negative axes count from the end; duplicates and out-of-range axes are errors of the op.
class Axes {
 public:
  Axes() = default;
  Axes(int64_t axis)
      : values_(std::vector<int64_t>{axis}) {
  }  // NOLINT(google-explicit-constructor): reduce_sum(x, 1)
  Axes(int axis) : values_(std::vector<int64_t>{axis}) {}  // NOLINT(google-explicit-constructor)
  Axes(std::initializer_list<int64_t> axes)                // NOLINT(google-explicit-constructor)
      : values_(std::vector<int64_t>(axes)) {}
  Axes(std::vector<int64_t> axes) : values_(std::move(axes)) {}  // NOLINT
  Axes(Tensor axes) : tensor_(std::move(axes)) {}                // NOLINT

  // True when every axis is reduced (nothing was given).
  bool all() const { return !values_ && !tensor_.defined(); }
  // The axes as a tensor input of a reduction op of a tensor of rank `rank`.
  Tensor ToTensor(int rank) const;

 private:
  std::optional<std::vector<int64_t>> values_;
  Tensor tensor_;
};

}  // namespace duet
