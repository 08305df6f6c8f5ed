// Reading integer operands (shapes, axes, perms) on the host: for kernels, and for gradient
// functions that must pass them to op functions taking C++ values.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace duet {

// The values of an int32 or int64 tensor as int64 (the caller has checked the dtype).
inline std::vector<int64_t> IntValues(const Tensor& t) {
  if (t.dtype() == kInt64) return t.to_vector<int64_t>();
  const int32_t* p = t.data<int32_t>();
  return std::vector<int64_t>(p, p + t.num_elements());
}

// The one value of a scalar (or one-element) int32/int64 tensor.
inline int64_t IntScalar(const Tensor& t) {
  return t.dtype() == kInt64 ? *t.data<int64_t>() : *t.data<int32_t>();
}

}  // namespace duet
