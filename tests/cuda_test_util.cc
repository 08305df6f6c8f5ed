#include "tests/cuda_test_util.h"

#include <catch2/catch.hpp>

#include "core/device.h"
#include "tests/test_util.h"

namespace duet::testing {

bool SkipWithoutGpu() {
#if DUET_CUDA
  if (num_gpus() > 0) return false;
  WARN("skipped: no CUDA device on this machine (num_gpus() is 0)");
#else
  WARN("skipped: built without --config=cuda (no CUDA kernels compiled)");
#endif
  return true;
}

void ExpectGpuMatchesCpu(const TensorFn& fn, const std::vector<Tensor>& inputs, double tol) {
  const std::vector<Tensor> expected = fn(inputs);
  std::vector<Tensor> on_gpu;
  for (const Tensor& x : inputs) on_gpu.push_back(x.gpu());
  const std::vector<Tensor> actual = fn(on_gpu);
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    INFO("output " << i);
    CHECK(actual[i].device() == Device::cuda(0));
    ExpectTensorNear(actual[i].cpu(), expected[i], tol);
  }
}

}  // namespace duet::testing
