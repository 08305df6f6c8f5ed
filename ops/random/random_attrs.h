// The attrs of the random ops, as typed keys (Note [Attribute keys] in ops/attr_key.h).
#pragma once

#include <cstdint>

#include "ops/attr_key.h"
#include "ops/attr_value.h"

namespace duet {

// The stateless random ops (StatelessRandomUniform, StatelessRandomNormal and their scaled forms).
struct StatelessRandomAttrs {
  static constexpr AttrKey<DType> kDtype{0, "dtype"};
  static constexpr AttrKey<DType> kT{1, "T"};
  static constexpr AttrKey<DType> kTseed{2, "Tseed"};
};

// TensorFlow's tf.random.Generator algorithm number of Philox4x32-10, and the size of its state:
// an int64 vector (counter low, counter high, key).
inline constexpr int64_t kPhiloxAlgorithm = 1;
inline constexpr int64_t kPhiloxStateSize = 3;

// StatefulStandardNormalV2 and StatefulUniform.
struct StatefulRandomAttrs {
  static constexpr AttrKey<DType> kDtype{0, "dtype"};
  static constexpr AttrKey<DType> kShapeDtype{1, "shape_dtype"};
};

}  // namespace duet
