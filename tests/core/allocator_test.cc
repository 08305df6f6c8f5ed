#include "core/allocator.h"

#include <catch2/catch.hpp>
#include <thread>

#include "core/tensor.h"

namespace duet {
namespace {

TEST_CASE("A freed block is reused for the next allocation of its size class") {
  CpuAllocator& a = CpuAllocator::Get();
  a.EmptyCache();
  const CpuAllocator::Stats before = a.stats();
  void* p = a.Allocate(1000);  // size class 1024
  REQUIRE(p != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(p) % kBufferAlignment == 0);
  const CpuAllocator::Stats held = a.stats();
  CHECK(held.allocations == before.allocations + 1);
  CHECK(held.pool_hits == before.pool_hits);
  CHECK(held.bytes_in_use == before.bytes_in_use + 1024);
  a.Deallocate(p, 1000);
  CHECK(a.stats().bytes_in_use == before.bytes_in_use);
  void* q = a.Allocate(1024);  // same class: served from the free list
  CHECK(q == p);
  CHECK(a.stats().pool_hits == before.pool_hits + 1);
  a.Deallocate(q, 1024);
  a.EmptyCache();
  void* r = a.Allocate(1000);  // the cache was emptied: a fresh block
  CHECK(a.stats().pool_hits == before.pool_hits + 1);
  a.Deallocate(r, 1000);
}

TEST_CASE("Tensors return their buffers to the pool") {
  CpuAllocator& a = CpuAllocator::Get();
  { Tensor warm = Tensor::Empty(kFloat32, {256}); }
  const CpuAllocator::Stats before = a.stats();
  for (int i = 0; i < 10; ++i) Tensor t = Tensor::Empty(kFloat32, {256});
  const CpuAllocator::Stats after = a.stats();
  CHECK(after.allocations == before.allocations + 10);
  CHECK(after.pool_hits == before.pool_hits + 10);
  CHECK(after.bytes_in_use == before.bytes_in_use);
}

TEST_CASE("peak_bytes_in_use keeps the most bytes in use since ResetPeak") {
  CpuAllocator& a = CpuAllocator::Get();
  a.ResetPeak();
  const int64_t base = a.stats().bytes_in_use;
  CHECK(a.stats().peak_bytes_in_use == base);
  void* big = a.Allocate(1 << 20);
  void* small = a.Allocate(1 << 10);
  a.Deallocate(big, 1 << 20);
  CHECK(a.stats().peak_bytes_in_use >= base + (1 << 20) + (1 << 10));
  a.ResetPeak();
  CHECK(a.stats().peak_bytes_in_use == base + (1 << 10));
  a.Deallocate(small, 1 << 10);
}

TEST_CASE("Blocks freed on another thread are reused through the shared pool") {
  CpuAllocator& a = CpuAllocator::Get();
  a.EmptyCache();
  const int64_t hits = a.stats().pool_hits;
  void* p = nullptr;
  std::thread([&] {
    p = a.Allocate(4 << 20);  // 4 MiB: above the per-thread cache limit
    a.Deallocate(p, 4 << 20);
  }).join();
  void* q = a.Allocate(4 << 20);
  CHECK(q == p);
  CHECK(a.stats().pool_hits == hits + 1);
  a.Deallocate(q, 4 << 20);
}

TEST_CASE("Zero-byte allocations get a valid block") {
  CpuAllocator& a = CpuAllocator::Get();
  void* p = a.Allocate(0);
  CHECK(p != nullptr);
  a.Deallocate(p, 0);
  CHECK(Tensor::Empty(kInt64, {0, 3}).num_elements() == 0);
}

TEST_CASE("AllocatorFor") {
  CHECK(AllocatorFor(Device::cpu()) == &CpuAllocator::Get());
  CHECK(AllocatorFor(Device::cpu())->name() == "cpu_pool");
}

TEST_CASE("Absurdly large allocations fail cleanly") {
  absl::StatusOr<Tensor> t = Tensor::TryEmpty(kFloat32, {int64_t{1} << 20, int64_t{1} << 20});
  CHECK(t.status().code() == absl::StatusCode::kResourceExhausted);
  absl::StatusOr<Tensor> overflow =
      Tensor::TryEmpty(kFloat64, {int64_t{1} << 40, int64_t{1} << 40});
  CHECK(overflow.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(std::string(overflow.status().message()).find("too large") != std::string::npos);
  CHECK(CpuAllocator::Get().Allocate(size_t{1} << 62) == nullptr);
}

}  // namespace
}  // namespace duet

namespace duet {
namespace {

// Freed during static destruction, after the main thread's cache: must go to the shared pool.
const Tensor kStaticTensor = Tensor::Empty(kFloat32, Shape({16}));

TEST_CASE("a tensor in static storage can be freed after the thread cache is gone") {
  CHECK(kStaticTensor.num_elements() == 16);  // the check is that the process exits cleanly
}

}  // namespace
}  // namespace duet
