// The attrs of the reduction ops, as typed keys (Note [Attribute keys] in ops/attr_key.h).
#pragma once

#include "ops/attr_key.h"
#include "ops/attr_value.h"

namespace duet {

// Sum, Mean, Max, Min and Prod.
struct ReductionAttrs {
  static constexpr AttrKey<bool> kKeepDims{0, "keep_dims"};
  static constexpr AttrKey<DType> kT{1, "T"};
  static constexpr AttrKey<DType> kTidx{2, "Tidx"};
};

// ArgMax and ArgMin.
struct ArgReductionAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<DType> kTidx{1, "Tidx"};
  static constexpr AttrKey<DType> kOutputType{2, "output_type"};
};

}  // namespace duet
