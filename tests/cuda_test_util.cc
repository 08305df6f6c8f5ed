#include "tests/cuda_test_util.h"

#include <catch2/catch.hpp>

#include "core/device.h"
#include "tests/test_util.h"

namespace duet::testing {

// Note [Kernel tests on the virtual device]
// Each CUDA kernel test compares an op on the GPU with the same op on the host. Without a GPU
// (every CI run) the same cases run on the virtual device cpu:1 instead (Note [Virtual devices] in
// core/device.cc). There the kernels are the CPU's, so the values agree by construction; what the
// run checks is everything around the kernels that a GPU run checks too: each op is placed where
// its inputs are, accepts its host operands (shapes, axes, scalars, empty weights) beside them,
// passes the device check, and leaves every output on that device; and each case's own set-up
// works off the host. The first full GPU run failed in exactly those places (DenseBincount's empty
// host weights, FusedBatchNormV3's statistics on the host), which cpu:1 now catches in CI. Cases
// about what only the CUDA kernels do (their out-of-range conventions, TF32, NVRTC, NCCL, the
// caching allocator) skip without a GPU.

namespace {
bool HaveGpu() {
#if DUET_CUDA
  return num_gpus() > 0;
#else
  return false;
#endif
}
}  // namespace

Device TestDevice() { return HaveGpu() ? Device::cuda(0) : Device::cpu(1); }

bool SkipWithoutTestDevice() {
  if (HaveGpu() || num_cpu_devices() > 1) return false;
  WARN(
      "skipped: no GPU and no virtual device cpu:1 (run with DUET_VIRTUAL_DEVICES=2, as the "
      "test rules do)");
  return true;
}

bool SkipWithoutGpu() {
#if DUET_CUDA
  if (num_gpus() > 0) return false;
  WARN("skipped: no CUDA device on this machine (num_gpus() is 0)");
#else
  WARN("skipped: built without --config=cuda (no CUDA kernels compiled)");
#endif
  return true;
}

Tensor OnTestDevice(const Tensor& x) { return x.to(TestDevice()); }

void ExpectDeviceMatchesCpu(const TensorFn& fn, const std::vector<Tensor>& inputs, double tol) {
  const std::vector<Tensor> expected = fn(inputs);
  std::vector<Tensor> there;
  for (const Tensor& x : inputs) there.push_back(OnTestDevice(x));
  const std::vector<Tensor> actual = fn(there);
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    INFO("output " << i);
    CHECK(actual[i].device() == TestDevice());
    ExpectTensorNear(actual[i].cpu(), expected[i], tol);
  }
}

}  // namespace duet::testing
