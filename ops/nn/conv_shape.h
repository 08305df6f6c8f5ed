// What the 2-D convolution ops (Conv2D, its backprops, _FusedConv2D) share: the declaration of
// their common attrs and the output shape of NHWC input convolved with an HWIO filter.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/shape.h"
#include "ops/op_def.h"
#include "ops/shape_context.h"

namespace duet {

// Declares ConvAttrs at their positions, with TensorFlow's defaults.
OpDefBuilder& DeclareConvAttrs(OpDefBuilder& builder);

// [batch, out_h, out_w, out_channels] of a call of an op declared with ConvAttrs (Conv2D,
// _FusedConv2D) that convolves input 0 [batch, h, w, in_channels] with filter input 1
// [k_h, k_w, in_channels, out_channels]; unknown dims stay unknown. Errors name the bad attr or
// the shapes that do not fit together.
absl::StatusOr<Shape> Conv2DOutputShape(const ShapeContext& ctx);

}  // namespace duet
