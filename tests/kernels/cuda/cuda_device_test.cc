// The CUDA device end to end: the multi-device cases (tests/device_cases.h: copies, placement,
// printing, variables, tapes, sessions, traced steps, control flow, nested calls and models with
// optimizers) on cuda:0 against the same work on the CPU, and the caching allocator. Every case
// skips without a GPU; tests/eager/virtual_device_test.cc runs the same cases on cpu:1 everywhere.
// Tolerances: float64 1e-9 to 1e-12 (summation order only); float32 1e-5 relative.
#include <catch2/catch.hpp>

#include "duet.h"
#include "kernels/cuda/cuda_allocator.h"
#include "kernels/cuda/cuda_context.h"
#include "tests/cuda_test_util.h"
#include "tests/device_cases.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using namespace testing;  // NOLINT: the shared cases

const Device kGpu = Device::cuda(0);

TEST_CASE("gpu() and cpu() copy every dtype there and back") {
  if (SkipWithoutGpu()) return;
  CheckCopiesEveryDtype(kGpu);
  CHECK(random_normal({3}, 1).gpu().device() == kGpu);
  if (num_gpus() > 1) {
    const Tensor x = random_normal({1000}, 1);
    ExpectTensorNear(x.gpu().to(Device::cuda(1)).cpu(), x, 0);
  }
}

TEST_CASE("reading or printing a GPU tensor copies it back") {
  if (SkipWithoutGpu()) return;
  CheckReadingAndPrintingCopyBack(kGpu);
}

TEST_CASE("ops run where their inputs are; mixing devices is an error naming both") {
  if (SkipWithoutGpu()) return;
  CheckOpsRunWhereInputsAre(kGpu);
}

TEST_CASE("a concat of 70 GPU tensors reads its axis on the host") {
  if (SkipWithoutGpu()) return;
  CheckConcatOfManyValues(kGpu);
}

TEST_CASE("a DeviceScope runs ops on its device, copying inputs there (API.md's example)") {
  if (SkipWithoutGpu()) return;
  CheckDeviceScope(kGpu);
}

TEST_CASE("gradients flow through device copies back to the CPU") {
  if (SkipWithoutGpu()) return;
  CheckGradientsThroughCopies(kGpu);
}

TEST_CASE("a variable made from a GPU value lives and updates on the GPU") {
  if (SkipWithoutGpu()) return;
  CheckVariablesLiveOnTheirDevice(kGpu);
}

TEST_CASE("a session runs GPU nodes, copying feeds and values across devices") {
  if (SkipWithoutGpu()) return;
  CheckSessionOnDevice(kGpu);
}

TEST_CASE("a session reads and updates a variable on the GPU") {
  if (SkipWithoutGpu()) return;
  CheckSessionVariablesOnDevice(kGpu);
}

TEST_CASE("a fused elementwise chain (NVRTC) gets its host scalars copied to the GPU") {
  if (SkipWithoutGpu()) return;
  CheckFusedElementwiseWithHostScalars(kGpu);
}

TEST_CASE("host code reads GPU values through copies: passes, shadow check, initializer") {
  if (SkipWithoutGpu()) return;
  CheckDeviceValuesReadThroughCopies(kGpu);
}

TEST_CASE("a training step traced and run entirely on the GPU equals the CPU's") {
  if (SkipWithoutGpu()) return;
  CheckTracedTrainingStep(kGpu);
}

TEST_CASE("cond, while_loop and a cond's gradient in a function traced on the GPU") {
  if (SkipWithoutGpu()) return;
  CheckTracedControlFlow(kGpu);
}

TEST_CASE("nested traced calls across the GPU and the CPU, and their gradients") {
  if (SkipWithoutGpu()) return;
  CheckNestedCallsAndTheirGradients(kGpu);
}

TEST_CASE("an MLP and a conv-bn-relu CNN train traced on the GPU with SGD and Adam") {
  if (SkipWithoutGpu()) return;
  CheckTracedModelTraining(kGpu);
}

TEST_CASE("a frozen GraphDef of a function traced on the GPU imports and runs there") {
  if (SkipWithoutGpu()) return;
  CheckFrozenExportOfAFunctionTracedThere(kGpu);
}

TEST_CASE("repeated GPU ops reuse cached blocks: no cudaMalloc in the steady state") {
  if (SkipWithoutGpu()) return;
  const Tensor x = random_normal({256, 256}, 1).gpu();
  for (int i = 0; i < 3; ++i) matmul(x, x) + x;  // warm up the size classes
  CudaAllocator* allocator = CudaAllocator::Get(0);
  const CudaAllocator::Stats before = allocator->stats();
  for (int i = 0; i < 100; ++i) matmul(x, x) + x;
  const CudaAllocator::Stats after = allocator->stats();
  CHECK(after.allocations - before.allocations == after.pool_hits - before.pool_hits);
  empty_cache();
  CHECK(allocator->stats().bytes_pooled == 0);
}

}  // namespace
}  // namespace duet
