#include "kernels/common/window_geometry.h"

#include <algorithm>

namespace duet {

WindowPadding SameOrValidPadding(int64_t in, int64_t out, int64_t window, int64_t stride,
                                 int64_t dilation) {
  const int64_t effective_window = (window - 1) * dilation + 1;
  const int64_t total = std::max<int64_t>((out - 1) * stride + effective_window - in, 0);
  return {total / 2, total - total / 2};
}

int64_t SpatialProduct(const int64_t* values, int rank) {
  int64_t product = 1;
  for (int d = 0; d < rank; ++d) product *= values[d];
  return product;
}

}  // namespace duet
