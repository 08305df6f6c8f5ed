// The attrs of the math ops, as typed keys (Note [Attribute keys] in ops/attr_key.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/attr_key.h"
#include "ops/attr_value.h"

namespace duet {

// Cast. SrcT comes first, so it picks the kernel.
struct CastAttrs {
  static constexpr AttrKey<DType> kSrcT{0, "SrcT"};
  static constexpr AttrKey<DType> kDstT{1, "DstT"};
  static constexpr AttrKey<bool> kTruncate{2, "Truncate"};
};

// AddN.
struct AddNAttrs {
  static constexpr AttrKey<int64_t> kN{0, "N"};
  static constexpr AttrKey<DType> kT{1, "T"};
};

// Equal and NotEqual.
struct EqualityAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<bool> kIncompatibleShapeError{1, "incompatible_shape_error"};
};

// LeakyRelu (TensorFlow's order: alpha, then T).
struct LeakyReluAttrs {
  static constexpr AttrKey<float> kAlpha{0, "alpha"};
  static constexpr AttrKey<DType> kT{1, "T"};
};

// Bucketize.
struct BucketizeAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<std::vector<float>> kBoundaries{1, "boundaries"};
};

// CheckNumerics.
struct CheckNumericsAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<std::string> kMessage{1, "message"};
};

// _FusedElementwise (Note [Elementwise programs] in ops/math/elementwise_program.h).
struct FusedElementwiseAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<int64_t> kN{1, "N"};
  static constexpr AttrKey<std::vector<std::string>> kOps{2, "ops"};
  static constexpr AttrKey<std::vector<int64_t>> kOperands{3, "operands"};
  static constexpr AttrKey<int64_t> kM{4, "M"};
  static constexpr AttrKey<std::vector<int64_t>> kResults{5, "results"};
  static constexpr AttrKey<std::vector<int64_t>> kConcat{6, "concat"};
  static constexpr AttrKey<std::vector<int64_t>> kInputParts{7, "input_parts"};
};

}  // namespace duet
