// The CUDA caching allocator: device memory in size classes, so a steady state of repeated ops
// reuses blocks instead of calling cudaMalloc (which is slow and synchronizes the device).
#pragma once

#include "core/allocator.h"
#include "core/size_class_pool.h"

namespace duet {

// One per CUDA device; registered as the allocator for DeviceType::kCuda (AllocatorFor).
class CudaAllocator final : public Allocator {
 public:
  using Stats = SizeClassPool::Stats;

  // The allocator of cuda:`index`; nullptr when there is no such device.
  static CudaAllocator* Get(int index);

  void* Allocate(size_t bytes) override { return pool_.Allocate(bytes); }
  void Deallocate(void* ptr, size_t bytes) override { pool_.Deallocate(ptr, bytes); }
  absl::string_view name() const override { return "cuda_pool"; }
  absl::Status CopyWithin(void* dst, const void* src, size_t bytes) override;

  Stats stats() const { return pool_.stats(); }
  // Frees every cached block back to the driver (blocks in use stay valid).
  void EmptyCache() { pool_.Clear(); }

 private:
  explicit CudaAllocator(int index);

  const int index_;
  SizeClassPool pool_;
};

}  // namespace duet
