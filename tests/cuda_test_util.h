// Helpers for the CUDA kernel tests (tests/kernels/cuda/): the device they run on, skipping when
// there is none, and comparing an op's result there with its CPU result (the reference for every
// CUDA kernel). Note [Kernel tests on the virtual device] in cuda_test_util.cc.
#pragma once

#include <functional>
#include <vector>

#include "core/device.h"
#include "core/tensor.h"

namespace duet::testing {

// The device the kernel tests run on: cuda:0 when the build has the CUDA kernels and the machine
// a GPU, else the virtual device cpu:1 (which the test rules make with DUET_VIRTUAL_DEVICES=2).
Device TestDevice();

// True (after a Catch2 WARN saying why) when there is no test device: no GPU and no cpu:1. Use as
// `if (SkipWithoutTestDevice()) return;` at the top of a case that holds on any device.
bool SkipWithoutTestDevice();

// True (after a Catch2 WARN saying why) when GPU tests cannot run: the build has no CUDA
// kernels (no --config=cuda) or the machine has no GPU. For the cases that check what only the
// CUDA kernels do: their own conventions (out-of-range indices), TF32, NVRTC, NCCL, the allocator.
bool SkipWithoutGpu();

// `x` copied to TestDevice().
Tensor OnTestDevice(const Tensor& x);

using TensorFn = std::function<std::vector<Tensor>(const std::vector<Tensor>& inputs)>;

// Runs `fn` on `inputs` (host tensors), then on copies of them on TestDevice(); requires every
// output of the second run to live there and to match the first within `tol` (absolute +
// relative).
void ExpectDeviceMatchesCpu(const TensorFn& fn, const std::vector<Tensor>& inputs, double tol);

}  // namespace duet::testing
