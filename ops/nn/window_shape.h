// Shape arithmetic shared by the sliding-window ops over NHWC (Conv2D, MaxPool, AvgPool) and NDHWC
// (Conv3D, MaxPool3D, AvgPool3D) input: attr checks and output sizes with TensorFlow's SAME / VALID
// / EXPLICIT padding rules. `rank` is the number of spatial dims: 2 (height, width) or 3 (depth,
// height, width).
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/shape.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {

// Expands op-function shorthand for NHWC (NDHWC) attrs: {s} -> {1, s, s, 1} ({1, s, s, s, 1}),
// {h, w} -> {1, h, w, 1} ({d, h, w} -> {1, d, h, w, 1}); anything else is returned unchanged (and
// checked by the shape function).
std::vector<int64_t> ExpandNhwcAttr(std::vector<int64_t> values, int rank = 2);

// Checks a strides/ksize/dilations attr: rank + 2 entries [1, h, w, 1] ([1, d, h, w, 1]), each
// spatial entry >= 1; the error names the attr and its value.
absl::Status CheckNhwcAttr(absl::string_view name, const std::vector<int64_t>& values,
                           int rank = 2);

// The dims of an NHWC (rank 2) or NDHWC (rank 3) tensor, for error messages: "batch, height,
// width, channels".
absl::string_view NhwcDimNames(int rank);

// The window geometry of one window op call, per spatial dim in the tensor's order (height, width;
// or depth, height, width).
struct WindowSpec {
  int rank = 2;  // spatial dims: 2 (NHWC) or 3 (NDHWC)
  int64_t window[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t dilation[3] = {1, 1, 1};
  absl::string_view padding;          // "SAME", "VALID" or "EXPLICIT"
  int64_t pad_before[3] = {0, 0, 0};  // EXPLICIT only (rank 2)
  int64_t pad_after[3] = {0, 0, 0};   // EXPLICIT only (rank 2)
};

// Reads EXPLICIT paddings ([0, 0, top, bottom, left, right, 0, 0]) into `spec`; for SAME/VALID
// `explicit_paddings` must be empty. Errors name the attr value.
absl::Status SetExplicitPaddings(const std::vector<int64_t>& explicit_paddings, WindowSpec& spec);

// Checks the PoolAttrs of a pooling op's call (ksize and strides of spec.rank + 2 entries) and sets
// spec's window, stride and padding from them; EXPLICIT paddings (already in `spec`) must be
// smaller than the window.
absl::Status SetPoolWindow(const ShapeContext& ctx, WindowSpec& spec);

// A window attr (strides, ksize, dilations) given in `format`'s order, in channels-last order.
std::vector<int64_t> ChannelsLastWindow(std::vector<int64_t> values, DataFormat format);
// Makes a call built channels-last take images in `format` (Note [Channels-first] in
// ops/channels_first.cc): data_format and the per-dim attrs, permuted.
void UseDataFormat(OpCall& call, DataFormat format);

// Sets the PoolAttrs of a pooling op's call, expanding ksize and strides as ExpandNhwcAttr does.
void SetPoolWindowAttrs(OpCall& call, std::vector<int64_t> ksize, std::vector<int64_t> strides,
                        std::string padding, int rank = 2);

// Runs pooling op `op` (or its backward op) on `inputs` with the window attrs set as
// SetPoolWindowAttrs does; the op's other attrs keep their defaults.
Tensor RunPoolOp(const OpDef* op, TensorList inputs, std::vector<int64_t> ksize,
                 std::vector<int64_t> strides, std::string padding, int rank, OpSite site);

// Declares PoolAttrs and UnpaddedPoolAttrs (padding SAME or VALID; data_format NHWC for rank 2,
// NDHWC for rank 3; T of `types`, defaulting to `default_type`) at their positions, as the pooling
// ops without explicit paddings declare them.
OpDefBuilder& DeclareUnpaddedPoolAttrs(OpDefBuilder& builder, int rank, std::vector<DType> types,
                                       std::optional<DType> default_type = {});

// Output size of one spatial dim, as TensorFlow computes it: SAME ceil(in / stride), VALID and
// EXPLICIT (padded - effective_window + stride) / stride rounded toward zero, where padded is in
// plus the pads and effective_window = (window - 1) * dilation + 1 (an input a little smaller
// than the window gives 0). Unknown (-1) in gives -1. A negative size (an input smaller than the
// window by stride or more) is an error naming both sizes and `dim_name`.
absl::StatusOr<int64_t> WindowOutputSize(int64_t in, const WindowSpec& spec, int dim,
                                         absl::string_view dim_name);

// Output shape [N, out_h, out_w, out_channels] ([N, out_d, out_h, out_w, out_channels] for
// spec.rank 3) of a window op on NHWC (NDHWC) `input`, which must be of rank spec.rank + 2 or of
// unknown rank (then only out_channels is known).
absl::StatusOr<Shape> NhwcWindowOutputShape(const Shape& input, const WindowSpec& spec,
                                            int64_t out_channels);

}  // namespace duet
