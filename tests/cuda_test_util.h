// Helpers for GPU tests: skipping without a GPU, and comparing an op's GPU result with its CPU
// result (the reference for every CUDA kernel).
#pragma once

#include <functional>
#include <vector>

#include "core/tensor.h"

namespace duet::testing {

// True (after a Catch2 WARN saying why) when GPU tests cannot run: the build has no CUDA
// kernels (no --config=cuda) or the machine has no GPU. Use as
// `if (SkipWithoutGpu()) return;` at the top of every GPU test case.
bool SkipWithoutGpu();

using TensorFn = std::function<std::vector<Tensor>(const std::vector<Tensor>& inputs)>;

// Runs `fn` on `inputs` (CPU tensors), then on copies of them on cuda:0; requires every GPU
// output to live on cuda:0 and to match the CPU output within `tol` (absolute + relative).
void ExpectGpuMatchesCpu(const TensorFn& fn, const std::vector<Tensor>& inputs, double tol);

}  // namespace duet::testing
