// Padding of sliding-window ops (convolution, pooling), before and after each spatial dim.
#pragma once

#include <cstdint>

namespace duet {

// Padding before and after one spatial dim.
struct WindowPadding {
  int64_t before = 0;
  int64_t after = 0;
};

// The padding that turns an input of size `in` into `out` windows of size `window` (dilated by
// `dilation`) at `stride`, following TensorFlow's SAME/VALID rule: total = max((out - 1) * stride +
// effective_window - in, 0), before = total / 2. `out` must come from the op's shape function,
// which applied SAME or VALID; VALID always gives zero padding.
WindowPadding SameOrValidPadding(int64_t in, int64_t out, int64_t window, int64_t stride,
                                 int64_t dilation = 1);

}  // namespace duet
