// The CUDA caching allocator: checks what holds on every machine, then allocates on a real GPU;
// the GPU part skips, saying why, without one.
#include "kernels/cuda/cuda_allocator.h"

#include <cuda_runtime_api.h>

#include <catch2/catch.hpp>

#include "duet.h"

namespace duet {
namespace {

TEST_CASE("The CUDA allocator is registered for every device there is, and no other") {
  for (int i = 0; i < num_gpus(); ++i) {
    Allocator* a = AllocatorFor(Device::cuda(i));
    REQUIRE(a != nullptr);
    CHECK(a == CudaAllocator::Get(i));
    CHECK(a->name() == "cuda_pool");
  }
  CHECK(AllocatorFor(Device::cuda(num_gpus())) == nullptr);
  CHECK(CudaAllocator::Get(-1) == nullptr);
  empty_cache();  // a no-op without GPUs; must not fail either way
}

TEST_CASE("CUDA blocks are reused and empty_cache returns them") {
  if (num_gpus() == 0) {
    WARN("skipped: no CUDA device on this machine");
    return;
  }
  CudaAllocator& a = *CudaAllocator::Get(0);
  a.EmptyCache();
  const CudaAllocator::Stats before = a.stats();
  void* p = a.Allocate(1000);  // size class 1024
  REQUIRE(p != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(p) % kBufferAlignment == 0);
  cudaPointerAttributes attributes;
  REQUIRE(cudaPointerGetAttributes(&attributes, p) == cudaSuccess);
  CHECK(attributes.type == cudaMemoryTypeDevice);
  CHECK(attributes.device == 0);
  REQUIRE(cudaMemset(p, 0, 1000) == cudaSuccess);
  CHECK(a.stats().bytes_in_use == before.bytes_in_use + 1024);

  a.Deallocate(p, 1000);
  CHECK(a.stats().bytes_pooled == 1024);
  void* q = a.Allocate(700);  // same class: no cudaMalloc
  CHECK(q == p);
  CHECK(a.stats().pool_hits == before.pool_hits + 1);
  a.Deallocate(q, 700);

  empty_cache();
  CHECK(a.stats().bytes_pooled == 0);
  CHECK(a.stats().bytes_in_use == before.bytes_in_use);
}

TEST_CASE("A CUDA allocation larger than the device fails with nullptr, not an error") {
  if (num_gpus() == 0) {
    WARN("skipped: no CUDA device on this machine");
    return;
  }
  size_t free_bytes = 0, total_bytes = 0;
  REQUIRE(cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess);
  CudaAllocator& a = *CudaAllocator::Get(0);
  CHECK(a.Allocate(total_bytes * 2) == nullptr);
  CHECK(cudaGetLastError() == cudaSuccess);  // the failure was cleared
  void* p = a.Allocate(1 << 20);             // and the device still works
  CHECK(p != nullptr);
  a.Deallocate(p, 1 << 20);
  a.EmptyCache();
}

}  // namespace
}  // namespace duet
