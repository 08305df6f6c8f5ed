// The attrs of the nn ops, as typed keys (Note [Attribute keys] in ops/attr_key.h). Ops that share
// attrs declare them at the same positions and share the keys.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/attr_key.h"
#include "ops/attr_value.h"

namespace duet {

// MatMul, _FusedMatMul and _ResourceApplyMatMulGradientDescent.
struct MatMulAttrs {
  static constexpr AttrKey<bool> kTransposeA{0, "transpose_a"};
  static constexpr AttrKey<bool> kTransposeB{1, "transpose_b"};
  static constexpr AttrKey<DType> kT{2, "T"};
  // MatMul's gradient hints (TensorFlow's); no effect on the result.
  static constexpr AttrKey<bool> kGradA{3, "grad_a"};
  static constexpr AttrKey<bool> kGradB{4, "grad_b"};
};

// BatchMatMulV2.
struct BatchMatMulAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<bool> kAdjX{1, "adj_x"};
  static constexpr AttrKey<bool> kAdjY{2, "adj_y"};
  // Gradient hints (TensorFlow's); no effect on the result.
  static constexpr AttrKey<bool> kGradX{3, "grad_x"};
  static constexpr AttrKey<bool> kGradY{4, "grad_y"};
};

// _FusedMatMul's own attrs, after MatMulAttrs' first three.
struct FusedMatMulAttrs {
  static constexpr AttrKey<int64_t> kNumArgs{3, "num_args"};
  static constexpr AttrKey<std::vector<std::string>> kFusedOps{4, "fused_ops"};
  static constexpr AttrKey<float> kEpsilon{5, "epsilon"};
  static constexpr AttrKey<float> kLeakyReluAlpha{6, "leakyrelu_alpha"};
};

// _ResourceApplyMatMulGradientDescent's own attr, after MatMulAttrs' first three.
struct MatMulApplyGradientDescentAttrs {
  static constexpr AttrKey<bool> kUseLocking{3, "use_locking"};
};

// Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter and _FusedConv2D.
struct ConvAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<std::vector<int64_t>> kStrides{1, "strides"};
  static constexpr AttrKey<bool> kUseCudnnOnGpu{2, "use_cudnn_on_gpu"};
  static constexpr AttrKey<std::string> kPadding{3, "padding"};
  static constexpr AttrKey<std::vector<int64_t>> kExplicitPaddings{4, "explicit_paddings"};
  static constexpr AttrKey<std::string> kDataFormat{5, "data_format"};
  static constexpr AttrKey<std::vector<int64_t>> kDilations{6, "dilations"};
};

// DepthwiseConv2dNative and its backprops: ConvAttrs without use_cudnn_on_gpu, so the window attrs
// sit at other positions.
struct DepthwiseConvAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<std::vector<int64_t>> kStrides{1, "strides"};
  static constexpr AttrKey<std::string> kPadding{2, "padding"};
  static constexpr AttrKey<std::vector<int64_t>> kExplicitPaddings{3, "explicit_paddings"};
  static constexpr AttrKey<std::string> kDataFormat{4, "data_format"};
  static constexpr AttrKey<std::vector<int64_t>> kDilations{5, "dilations"};
};

// Conv3D, Conv3DBackpropInputV2 and Conv3DBackpropFilterV2 (padding SAME or VALID only).
struct Conv3DAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<std::vector<int64_t>> kStrides{1, "strides"};
  static constexpr AttrKey<std::string> kPadding{2, "padding"};
  static constexpr AttrKey<std::string> kDataFormat{3, "data_format"};
  static constexpr AttrKey<std::vector<int64_t>> kDilations{4, "dilations"};
};

// Conv3DBackpropInputV2's own attr, after Conv3DAttrs: the dtype of input_sizes.
struct Conv3DBackpropInputAttrs {
  static constexpr AttrKey<DType> kTshape{5, "Tshape"};
};

// Which convolution an op computes: Conv2D's family (ConvAttrs; HWIO filter [k_h, k_w,
// in_channels, out_channels]), DepthwiseConv2dNative's (DepthwiseConvAttrs; filter [k_h, k_w,
// in_channels, multiplier], output channel c * multiplier + m from input channel c) or Conv3D's
// (Conv3DAttrs; NDHWC input, DHWIO filter [k_d, k_h, k_w, in_channels, out_channels]).
enum class ConvKind { kConv2D, kDepthwise, kConv3D };

// The number of spatial dims of a `kind` convolution.
inline int ConvRank(ConvKind kind) { return kind == ConvKind::kConv3D ? 3 : 2; }

// The window attrs of a 2-D convolution, for code shared by the ops that declare them at
// different positions: references to one op family's keys (an attr is read through the very key
// that declared it, Note [Attribute keys] in ops/attr_key.h). `explicit_paddings` is null for an
// op without that attr (TensorFlow's _FusedDepthwiseConv2dNative: padding SAME or VALID only).
struct ConvWindowKeys {
  const AttrKey<std::vector<int64_t>>& strides;
  const AttrKey<std::string>& padding;
  const AttrKey<std::vector<int64_t>>* explicit_paddings;
  const AttrKey<std::vector<int64_t>>& dilations;
};

// The window keys of the unfused `kind` ops and their backprops (Conv2D's also _FusedConv2D's).
inline const ConvWindowKeys& ConvWindowKeysOf(ConvKind kind) {
  static constexpr ConvWindowKeys kConv{ConvAttrs::kStrides, ConvAttrs::kPadding,
                                        &ConvAttrs::kExplicitPaddings, ConvAttrs::kDilations};
  static constexpr ConvWindowKeys kDepthwise{
      DepthwiseConvAttrs::kStrides, DepthwiseConvAttrs::kPadding,
      &DepthwiseConvAttrs::kExplicitPaddings, DepthwiseConvAttrs::kDilations};
  static constexpr ConvWindowKeys kConv3D{Conv3DAttrs::kStrides, Conv3DAttrs::kPadding, nullptr,
                                          Conv3DAttrs::kDilations};
  switch (kind) {
    case ConvKind::kConv2D:
      return kConv;
    case ConvKind::kDepthwise:
      return kDepthwise;
    case ConvKind::kConv3D:
      break;
  }
  return kConv3D;
}

// _FusedConv2D's own attrs, after ConvAttrs.
struct FusedConv2DAttrs {
  static constexpr AttrKey<int64_t> kNumArgs{7, "num_args"};
  static constexpr AttrKey<std::vector<std::string>> kFusedOps{8, "fused_ops"};
  static constexpr AttrKey<float> kEpsilon{9, "epsilon"};
  static constexpr AttrKey<float> kLeakyReluAlpha{10, "leakyrelu_alpha"};
};

// _FusedDepthwiseConv2dNative's attrs, at TensorFlow's positions: unlike DepthwiseConv2dNative it
// has num_args second and no explicit_paddings, so its window attrs cannot share
// DepthwiseConvAttrs' positions and are read through kFusedDepthwiseWindowKeys.
struct FusedDepthwiseConvAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<int64_t> kNumArgs{1, "num_args"};
  static constexpr AttrKey<std::vector<int64_t>> kStrides{2, "strides"};
  static constexpr AttrKey<std::string> kPadding{3, "padding"};
  static constexpr AttrKey<std::string> kDataFormat{4, "data_format"};
  static constexpr AttrKey<std::vector<int64_t>> kDilations{5, "dilations"};
  static constexpr AttrKey<std::vector<std::string>> kFusedOps{6, "fused_ops"};
  static constexpr AttrKey<float> kEpsilon{7, "epsilon"};
  static constexpr AttrKey<float> kLeakyReluAlpha{8, "leakyrelu_alpha"};
};

inline constexpr ConvWindowKeys kFusedDepthwiseWindowKeys{
    FusedDepthwiseConvAttrs::kStrides, FusedDepthwiseConvAttrs::kPadding, nullptr,
    FusedDepthwiseConvAttrs::kDilations};

// Every pooling op and pooling gradient: the window.
struct PoolAttrs {
  static constexpr AttrKey<std::vector<int64_t>> kKsize{0, "ksize"};
  static constexpr AttrKey<std::vector<int64_t>> kStrides{1, "strides"};
  static constexpr AttrKey<std::string> kPadding{2, "padding"};
};

// MaxPool and MaxPoolGrad, after PoolAttrs.
struct MaxPoolAttrs {
  static constexpr AttrKey<std::vector<int64_t>> kExplicitPaddings{3, "explicit_paddings"};
  static constexpr AttrKey<std::string> kDataFormat{4, "data_format"};
  static constexpr AttrKey<DType> kT{5, "T"};
};

// The pooling ops without explicit paddings (AvgPool, AvgPoolGrad, MaxPoolGradGrad and their 3-D
// twins MaxPool3D, AvgPool3D, MaxPool3DGrad, AvgPool3DGrad, MaxPool3DGradGrad), after PoolAttrs.
struct UnpaddedPoolAttrs {
  static constexpr AttrKey<std::string> kDataFormat{3, "data_format"};
  static constexpr AttrKey<DType> kT{4, "T"};
};

// MaxPool3DGrad's own attr, after UnpaddedPoolAttrs: the dtype of orig_input and orig_output
// (duet requires it to equal T).
struct MaxPool3DGradAttrs {
  static constexpr AttrKey<DType> kTInput{5, "TInput"};
};

// ResizeBilinear, ResizeNearestNeighbor and their gradients (kernels/common/resize_geometry.h
// has the coordinate rules these select).
struct ResizeAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<bool> kAlignCorners{1, "align_corners"};
  static constexpr AttrKey<bool> kHalfPixelCenters{2, "half_pixel_centers"};
};

// FusedBatchNormV3.
struct FusedBatchNormAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<DType> kU{1, "U"};
  static constexpr AttrKey<float> kEpsilon{2, "epsilon"};
  static constexpr AttrKey<float> kExponentialAvgFactor{3, "exponential_avg_factor"};
  static constexpr AttrKey<std::string> kDataFormat{4, "data_format"};
  static constexpr AttrKey<bool> kIsTraining{5, "is_training"};
};

// BiasAdd.
struct BiasAddAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<std::string> kDataFormat{1, "data_format"};
};

// SparseSoftmaxCrossEntropyWithLogits.
struct SparseCrossEntropyAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<DType> kTlabels{1, "Tlabels"};
};

// TopKV2.
struct TopKAttrs {
  static constexpr AttrKey<bool> kSorted{0, "sorted"};
  static constexpr AttrKey<DType> kT{1, "T"};
  static constexpr AttrKey<DType> kTk{2, "Tk"};
  static constexpr AttrKey<DType> kIndexType{3, "index_type"};
};

// Einsum.
struct EinsumAttrs {
  static constexpr AttrKey<std::string> kEquation{0, "equation"};
  static constexpr AttrKey<int64_t> kN{1, "N"};
  static constexpr AttrKey<DType> kT{2, "T"};
};

}  // namespace duet
