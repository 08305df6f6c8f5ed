// Elementwise math op functions and the C++ operators on tensors.
#pragma once

#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet {

// x + y with NumPy broadcasting (op AddV2).
Tensor add(const Tensor& x, const Tensor& y, OpSite site = {});

Tensor operator+(const Tensor& x, const Tensor& y);

}  // namespace duet
