// Memory allocators. Every tensor buffer comes from the allocator of its device.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/device.h"

namespace duet {

// Alignment of every tensor buffer, in bytes (a cache line; enough for AVX-512 loads).
inline constexpr size_t kBufferAlignment = 64;

// Hands out device memory. Implementations are thread-safe.
class Allocator {
 public:
  virtual ~Allocator() = default;
  // kBufferAlignment-aligned memory of at least `bytes` bytes; nullptr when out of memory.
  virtual void* Allocate(size_t bytes) = 0;
  // Returns memory from Allocate(bytes) with the same `bytes`.
  virtual void Deallocate(void* ptr, size_t bytes) = 0;
  // Copies `bytes` bytes between two buffers of this allocator's device (in the device's stream
  // order, see Note [One stream per device] in kernels/cuda/cuda_context.h). CPU: memcpy.
  virtual absl::Status CopyWithin(void* dst, const void* src, size_t bytes);
  virtual absl::string_view name() const = 0;
};

// The CPU allocator: power-of-two size classes with free lists, so a steady state of repeated
// ops reuses buffers instead of calling malloc. Small blocks are cached per thread first, so the
// common path takes no lock.
class CpuAllocator final : public Allocator {
 public:
  struct Stats {
    int64_t allocations = 0;        // Allocate calls
    int64_t pool_hits = 0;          // ... served from a free list
    int64_t bytes_in_use = 0;       // size-class bytes handed out and not yet returned
    int64_t peak_bytes_in_use = 0;  // the most bytes_in_use since the last ResetPeak
  };

  static CpuAllocator& Get();

  void* Allocate(size_t bytes) override;
  void Deallocate(void* ptr, size_t bytes) override;
  absl::string_view name() const override { return "cpu_pool"; }

  Stats stats() const;
  // Starts a new peak_bytes_in_use from the bytes in use now (to measure one computation's peak).
  void ResetPeak();
  // Frees every cached block (the calling thread's cache and the shared pool).
  void EmptyCache();

 private:
  CpuAllocator() = default;
  void AddInUse(int64_t bytes);
  std::atomic<int64_t> allocations_{0}, thread_cache_hits_{0}, bytes_in_use_{0}, peak_{0};
};

// A virtual CPU device's allocator (Note [Virtual devices] in core/device.cc): the CPU pool's
// memory, handed out under the device's own name and byte count, so that tensors on cpu:N are a
// device's memory of their own.
class VirtualCpuAllocator final : public Allocator {
 public:
  // The allocator of cpu:`index` (1 <= index < num_cpu_devices()), or nullptr.
  static VirtualCpuAllocator* Get(int index);

  void* Allocate(size_t bytes) override;
  void Deallocate(void* ptr, size_t bytes) override;
  absl::string_view name() const override { return name_; }
  // Bytes handed out and not yet returned.
  int64_t bytes_in_use() const { return bytes_in_use_.load(std::memory_order_relaxed); }

 private:
  explicit VirtualCpuAllocator(int index);
  std::string name_;
  std::atomic<int64_t> bytes_in_use_{0};
};

// The allocator for a device, or nullptr when the device is not present (device_present). CPU
// and its virtual devices are built in; other device types register theirs.
Allocator* AllocatorFor(Device device);
void RegisterAllocatorFactory(DeviceType type, Allocator* (*factory)(int index));

}  // namespace duet
