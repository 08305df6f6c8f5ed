// Runs the nvcc-built fill kernel on a real GPU; skips, saying why, without one.
#include <algorithm>
#include <catch2/catch.hpp>
#include <vector>

#include "duet.h"

#if DUET_CUDA
#include <cuda_runtime_api.h>

#include "kernels/cuda/fill_kernels.h"
#endif

namespace duet {
namespace {

TEST_CASE("CUDA fill kernel writes every element") {
#if DUET_CUDA
  if (num_gpus() == 0) {
    WARN("skipped: no CUDA device on this machine");
    return;
  }
  const int64_t n = 1'000'003;  // not a multiple of the block size
  float* device = nullptr;
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&device), n * sizeof(float)) == cudaSuccess);
  REQUIRE(cuda::LaunchFill(device, n, 2.5f, nullptr) == cudaSuccess);
  std::vector<float> host(n);
  REQUIRE(cudaMemcpy(host.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost) ==
          cudaSuccess);
  cudaFree(device);
  CHECK(std::count(host.begin(), host.end(), 2.5f) == n);
#else
  WARN("skipped: built without --config=cuda (no .cu kernels compiled)");
#endif
}

}  // namespace
}  // namespace duet
