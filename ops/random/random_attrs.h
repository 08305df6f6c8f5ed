// The attrs of the random ops, as typed keys (Note [Attribute keys] in ops/attr_key.h).
#pragma once

#include "ops/attr_key.h"
#include "ops/attr_value.h"

namespace duet {

// The stateless random ops (StatelessRandomUniform, StatelessRandomNormal and their scaled forms).
struct StatelessRandomAttrs {
  static constexpr AttrKey<DType> kDtype{0, "dtype"};
  static constexpr AttrKey<DType> kT{1, "T"};
  static constexpr AttrKey<DType> kTseed{2, "Tseed"};
};

}  // namespace duet
