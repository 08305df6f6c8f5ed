// The output shape of a 2-D convolution (Conv2D, _FusedConv2D): NHWC input, HWIO filter.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/shape.h"

namespace duet {

// The attrs of a convolution that its output shape depends on (TensorFlow's names).
struct Conv2DAttrs {
  const std::vector<int64_t>& strides;            // [1, h, w, 1]
  absl::string_view padding;                      // "SAME", "VALID" or "EXPLICIT"
  const std::vector<int64_t>& explicit_paddings;  // EXPLICIT only: [0, 0, t, b, l, r, 0, 0]
  const std::vector<int64_t>& dilations;          // [1, h, w, 1]
};

// [batch, out_h, out_w, out_channels] of convolving `input` [batch, h, w, in_channels] with
// `filter` [k_h, k_w, in_channels, out_channels]; unknown dims stay unknown. Errors name the bad
// attr or the shapes that do not fit together.
absl::StatusOr<Shape> Conv2DOutputShape(const Shape& input, const Shape& filter,
                                        const Conv2DAttrs& attrs);

}  // namespace duet
