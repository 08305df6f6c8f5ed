#include "ops/reduction/axes.h"

#include <limits>
#include <numeric>

#include "core/constant.h"

namespace duet {

Tensor Axes::ToTensor(int rank) const {
  if (tensor_.defined()) return tensor_;
  std::vector<int64_t> axes;
  if (values_) {
    axes = *values_;
  } else {
    axes.resize(rank);
    std::iota(axes.begin(), axes.end(), 0);
  }
  // int32, TensorFlow's default Tidx, unless an axis is too far out of range to fit (the op
  // then reports it).
  for (int64_t a : axes) {
    if (a < std::numeric_limits<int32_t>::min() || a > std::numeric_limits<int32_t>::max()) {
      return from_vector(axes);
    }
  }
  return from_vector(std::vector<int32_t>(axes.begin(), axes.end()));
}

}  // namespace duet
