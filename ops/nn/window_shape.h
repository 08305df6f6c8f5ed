// Shape arithmetic shared by the NHWC sliding-window ops (Conv2D, MaxPool, AvgPool): attr checks
// and output sizes with TensorFlow's SAME / VALID / EXPLICIT padding rules.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/shape.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {

// Expands op-function shorthand for NHWC attrs: {s} -> {1, s, s, 1}, {h, w} -> {1, h, w, 1};
// anything else is returned unchanged (and checked by the shape function).
std::vector<int64_t> ExpandNhwcAttr(std::vector<int64_t> values);

// Checks a strides/ksize/dilations attr: 4 entries [1, h, w, 1] with h, w >= 1; the error names
// the attr and its value.
absl::Status CheckNhwcAttr(absl::string_view name, const std::vector<int64_t>& values);

// The window geometry of one NHWC window op call, per spatial dim (0 = height, 1 = width).
struct WindowSpec {
  int64_t window[2] = {1, 1};
  int64_t stride[2] = {1, 1};
  int64_t dilation[2] = {1, 1};
  absl::string_view padding;       // "SAME", "VALID" or "EXPLICIT"
  int64_t pad_before[2] = {0, 0};  // EXPLICIT only
  int64_t pad_after[2] = {0, 0};   // EXPLICIT only
};

// Reads EXPLICIT paddings ([0, 0, top, bottom, left, right, 0, 0]) into `spec`; for SAME/VALID
// `explicit_paddings` must be empty. Errors name the attr value.
absl::Status SetExplicitPaddings(const std::vector<int64_t>& explicit_paddings, WindowSpec& spec);

// Checks the PoolAttrs of a pooling op's call and sets spec's window, stride and padding from
// them; EXPLICIT paddings (already in `spec`) must be smaller than the window.
absl::Status SetPoolWindow(const ShapeContext& ctx, WindowSpec& spec);

// Sets the PoolAttrs of a pooling op's call, expanding ksize and strides as ExpandNhwcAttr does.
void SetPoolWindowAttrs(OpCall& call, std::vector<int64_t> ksize, std::vector<int64_t> strides,
                        std::string padding);

// Output size of one spatial dim: VALID ceil((in - effective_window + 1) / stride), SAME
// ceil(in / stride), EXPLICIT (in + pads - effective_window) / stride + 1, where effective_window =
// (window - 1) * dilation + 1. Unknown (-1) in gives -1. An input smaller than the window under
// VALID/EXPLICIT is an error naming both sizes and `dim_name`.
absl::StatusOr<int64_t> WindowOutputSize(int64_t in, const WindowSpec& spec, int dim,
                                         absl::string_view dim_name);

// Output shape [N, out_h, out_w, out_channels] of a window op on NHWC `input`, which must be 4-D
// or of unknown rank (then only out_channels is known).
absl::StatusOr<Shape> NhwcWindowOutputShape(const Shape& input, const WindowSpec& spec,
                                            int64_t out_channels);

}  // namespace duet
