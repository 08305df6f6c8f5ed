// The Philox stream of a stateless random op's seed input, for the CPU and CUDA kernels alike
// (host code: philox.h itself is compiled by nvcc too, and stays free of Tensor).
#pragma once

#include "core/tensor.h"
#include "kernels/common/philox.h"

namespace duet {

// The stream of `seed` (int32 or int64, two values; the op's shape function checked). Like
// TensorFlow, a negative int32 seed sign-extends to 64 bits.
philox::Stream SeedStream(const Tensor& seed);

}  // namespace duet
