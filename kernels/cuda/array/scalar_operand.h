// Passing a scalar operand (Fill's value, OneHot's on/off values) to a kernel wherever it lives.
#pragma once

#include <cstring>

#include "core/tensor.h"
#include "kernels/cuda/array/array_kernels.h"

namespace duet::cuda {

// A device scalar is read by the kernel itself (no synchronization); a host one (a constant made
// by an op function) is copied into the launch's arguments.
inline ScalarBits ScalarBitsOf(const Tensor& t) {
  ScalarBits s;
  if (t.device().is_cpu()) {
    std::memcpy(&s.bits, t.raw_data(), DTypeSize(t.dtype()));
  } else {
    s.device = t.raw_data();
  }
  return s;
}

}  // namespace duet::cuda
