// What the convolution ops (Conv2D, its backprops, _FusedConv2D, DepthwiseConv2dNative, its
// backprops, _FusedDepthwiseConv2dNative, Conv3D and its backprops) share: the declaration of their
// common attrs, the output shape of an NHWC (NDHWC) input convolved with a filter, the shape
// functions of the backprop ops and their size operands.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "ops/nn/nn_attrs.h"
#include "ops/op_call.h"
#include "ops/op_def.h"
#include "ops/shape_context.h"

namespace duet {

// Declares ConvAttrs at their positions, with TensorFlow's defaults; data_format one of
// `formats` (an op allowing "NCHW" declares ChannelsFirst).
OpDefBuilder& DeclareConvAttrs(OpDefBuilder& builder,
                               std::vector<std::string> formats = {"NHWC", "NCHW"});
// Declares Conv3DAttrs at their positions, with TensorFlow's defaults (NDHWC only).
OpDefBuilder& DeclareConv3DAttrs(OpDefBuilder& builder);
// Declares DepthwiseConvAttrs at their positions, with TensorFlow's defaults.
OpDefBuilder& DeclareDepthwiseConvAttrs(OpDefBuilder& builder);

// [batch, out_h, out_w, out_channels] of a call of a `kind` convolution op (Conv2D, _FusedConv2D,
// DepthwiseConv2dNative) that convolves input 0 [batch, h, w, in_channels] with filter input 1
// ([batch, out_d, out_h, out_w, out_channels] for Conv3D's NDHWC input); unknown dims stay
// unknown. Errors name the bad attr or the shapes that do not fit together.
// The name of the forward op of `kind`: "Conv2D", "DepthwiseConv2dNative" or "Conv3D".
absl::string_view ConvOpName(ConvKind kind);

absl::StatusOr<Shape> ConvOutputShape(const ShapeContext& ctx, ConvKind kind);
// ConvOutputShape reading the window attrs through `keys`, for an op that declares them at
// positions of its own (_FusedDepthwiseConv2dNative).
absl::StatusOr<Shape> ConvOutputShape(const ShapeContext& ctx, ConvKind kind,
                                      const ConvWindowKeys& keys);
// ConvOutputShape for Conv2D's family.
absl::StatusOr<Shape> Conv2DOutputShape(const ShapeContext& ctx);

// The shape functions of the input and filter gradients of a `kind` convolution
// (Conv2DBackpropInput(input_sizes, filter, out_backprop), Conv2DBackpropFilter(input,
// filter_sizes, out_backprop), the depthwise and the Conv3D*V2 ones): the output has the shape the
// integer sizes operand holds, and out_backprop must have the forward op's output shape.
absl::Status ConvBackpropInputShape(ShapeContext& ctx, ConvKind kind);
absl::Status ConvBackpropFilterShape(ShapeContext& ctx, ConvKind kind);

// The shape functions of the `kind` ops: the forward convolution, its input and filter gradients.
template <ConvKind kind>
absl::Status ConvShapeFn(ShapeContext& ctx) {
  DUET_ASSIGN_OR_RETURN(Shape out, ConvOutputShape(ctx, kind));
  ctx.set_output(0, ctx.output(0).dtype, std::move(out));
  return absl::OkStatus();
}
template <ConvKind kind>
absl::Status ConvBackpropInputShapeFn(ShapeContext& ctx) {
  return ConvBackpropInputShape(ctx, kind);
}
template <ConvKind kind>
absl::Status ConvBackpropFilterShapeFn(ShapeContext& ctx) {
  return ConvBackpropFilterShape(ctx, kind);
}

// Sets the window attrs of a call of an unfused `kind` op or backprop (through
// ConvWindowKeysOf(kind)), expanding strides and dilations as ExpandNhwcAttr does for the kind's
// rank; `explicit_paddings` only where the op has them (not Conv3D's family).
void SetConvWindowAttrs(OpCall& call, ConvKind kind, std::vector<int64_t> strides,
                        std::string padding, std::vector<int64_t> dilations,
                        std::vector<int64_t> explicit_paddings = {});

// A fully defined `shape` as the 1-D int32 tensor the backprop ops take (input_sizes,
// filter_sizes); throws Error naming `name` otherwise.
Tensor ConvSizesTensor(const Shape& shape, absl::string_view name);

}  // namespace duet
