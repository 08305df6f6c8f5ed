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

// All and Any: bool input and output, so no T (TensorFlow's order: keep_dims, then Tidx, which
// therefore picks the kernel).
struct BoolReductionAttrs {
  static constexpr AttrKey<bool> kKeepDims{0, "keep_dims"};
  static constexpr AttrKey<DType> kTidx{1, "Tidx"};
};

// Cumsum and Cumprod (TensorFlow's order: exclusive, reverse, T, Tidx).
struct ScanAttrs {
  static constexpr AttrKey<bool> kExclusive{0, "exclusive"};
  static constexpr AttrKey<bool> kReverse{1, "reverse"};
  static constexpr AttrKey<DType> kT{2, "T"};
  static constexpr AttrKey<DType> kTidx{3, "Tidx"};
};

// ArgMax and ArgMin.
struct ArgReductionAttrs {
  static constexpr AttrKey<DType> kT{0, "T"};
  static constexpr AttrKey<DType> kTidx{1, "Tidx"};
  static constexpr AttrKey<DType> kOutputType{2, "output_type"};
};

}  // namespace duet
