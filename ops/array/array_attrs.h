// The attrs of the array ops, as typed keys (Note [Attribute keys] in ops/attr_key.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/attr_key.h"
#include "ops/attr_value.h"

namespace duet {

// Const.
struct ConstAttrs {
  static constexpr AttrKey<Tensor> kValue{0, "value"};
  static constexpr AttrKey<DType> kDtype{1, "dtype"};
};

// Placeholder.
struct PlaceholderAttrs {
  static constexpr AttrKey<DType> kDtype{0, "dtype"};
  static constexpr AttrKey<Shape> kShape{1, "shape"};
};

// ConcatV2.
struct ConcatAttrs {
  static constexpr AttrKey<int64_t> kN{0, "N"};
  static constexpr AttrKey<DType> kT{1, "T"};
  static constexpr AttrKey<DType> kTidx{2, "Tidx"};
};

// Split and SplitV.
struct SplitAttrs {
  static constexpr AttrKey<int64_t> kNumSplit{0, "num_split"};
  static constexpr AttrKey<DType> kT{1, "T"};
};

// SplitV's own attr, after SplitAttrs.
struct SplitVAttrs {
  static constexpr AttrKey<DType> kTlen{2, "Tlen"};
};

// DuetCopyToDevice.
struct CopyToDeviceAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<std::string> kDevice{1, "device"};
};

// GatherV2.
struct GatherAttrs {
  static constexpr AttrKey<int64_t> kBatchDims{0, "batch_dims"};
  static constexpr AttrKey<DType> kTparams{1, "Tparams"};
  static constexpr AttrKey<DType> kTindices{2, "Tindices"};
  static constexpr AttrKey<DType> kTaxis{3, "Taxis"};
};

// GatherNd.
struct GatherNdAttrs {
  static constexpr AttrKey<DType> kTparams{0, "Tparams"};
  static constexpr AttrKey<DType> kTindices{1, "Tindices"};
  static constexpr AttrKey<std::string> kBadIndicesPolicy{2, "bad_indices_policy"};
};

// ScatterNd, TensorScatterUpdate and TensorScatterAdd.
struct ScatterNdAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<DType> kTindices{1, "Tindices"};
  static constexpr AttrKey<std::string> kBadIndicesPolicy{2, "bad_indices_policy"};
};

// OneHot.
struct OneHotAttrs {
  static constexpr AttrKey<int64_t> kAxis{0, "axis"};
  static constexpr AttrKey<DType> kT{1, "T"};
  static constexpr AttrKey<DType> kTI{2, "TI"};
};

// Shape and Size.
struct ShapeAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<DType> kOutType{1, "out_type"};
};

// Squeeze.
struct SqueezeAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<std::vector<int64_t>> kSqueezeDims{1, "squeeze_dims"};
};

// StridedSlice and StridedSliceGrad (Note [Strided slice specs] in ops/array/strided_slice_spec.h).
struct StridedSliceAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<DType> kIndex{1, "Index"};
  static constexpr AttrKey<int64_t> kBeginMask{2, "begin_mask"};
  static constexpr AttrKey<int64_t> kEndMask{3, "end_mask"};
  static constexpr AttrKey<int64_t> kEllipsisMask{4, "ellipsis_mask"};
  static constexpr AttrKey<int64_t> kNewAxisMask{5, "new_axis_mask"};
  static constexpr AttrKey<int64_t> kShrinkAxisMask{6, "shrink_axis_mask"};
};

// Pack.
struct PackAttrs {
  static constexpr AttrKey<int64_t> kN{0, "N"};
  static constexpr AttrKey<DType> kT{1, "T"};
  static constexpr AttrKey<int64_t> kAxis{2, "axis"};
};

// Unpack.
struct UnpackAttrs {
  static constexpr AttrKey<int64_t> kNum{0, "num"};
  static constexpr AttrKey<DType> kT{1, "T"};
  static constexpr AttrKey<int64_t> kAxis{2, "axis"};
};

// Range.
struct RangeAttrs {
  static constexpr AttrKey<DType> kTidx{0, "Tidx"};
};

// IdentityN.
struct IdentityNAttrs {
  static constexpr AttrKey<std::vector<DType>> kT{0, "T"};
};

// EnsureShape.
struct EnsureShapeAttrs {
  static constexpr AttrKey<Shape> kShape{0, "shape"};
  static constexpr AttrKey<DType> kT{1, "T"};
};

// DenseBincount.
struct DenseBincountAttrs {
  static constexpr AttrKey<DType> kTidx{0, "Tidx"};
  static constexpr AttrKey<DType> kT{1, "T"};
  static constexpr AttrKey<bool> kBinaryOutput{2, "binary_output"};
};

// MirrorPad and MirrorPadGrad.
struct MirrorPadAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<DType> kTpaddings{1, "Tpaddings"};
  static constexpr AttrKey<std::string> kMode{2, "mode"};
};

// PlaceholderWithDefault shares Placeholder's keys (dtype, shape at the same positions).

}  // namespace duet
