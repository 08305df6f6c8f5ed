#include "core/allocator.h"

#include <array>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/size_class_pool.h"

namespace duet {

absl::Status Allocator::CopyWithin(void* dst, const void* src, size_t bytes) {
  std::memcpy(dst, src, bytes);
  return absl::OkStatus();
}
namespace {

constexpr int kMaxThreadCachedClass = 20 - kMinSizeClassLog2;  // blocks up to 1 MiB
constexpr size_t kMaxThreadCachedPerClass = 16;
constexpr size_t kMaxPooledBytes = size_t{2} << 30;  // beyond this, free instead of caching

// Blocks shared by all threads, behind the thread caches.
SizeClassPool& Shared() {
  // Never destroyed: thread caches may flush into it late.
  static auto* pool =
      new SizeClassPool({[](size_t bytes) { return std::aligned_alloc(kBufferAlignment, bytes); },
                         [](void* p) { std::free(p); }},
                        kMaxPooledBytes);
  return *pool;
}

// Set once this thread's cache is destroyed. Trivially destructible, so still readable while
// later destructors run: tensors in static storage are freed after the main thread's cache.
thread_local bool cache_destroyed = false;

// Per-thread cache of small blocks; flushed into the shared pool when the thread ends.
struct ThreadCache {
  std::array<std::vector<void*>, kMaxThreadCachedClass + 1> free;
  ~ThreadCache() {
    Flush();
    cache_destroyed = true;
  }
  void Flush() {
    for (int c = 0; c <= kMaxThreadCachedClass; ++c) {
      for (void* p : free[c]) Shared().Deallocate(p, ClassBytes(c));
      free[c].clear();
    }
  }
};

// This thread's cache, or nullptr once it is gone (the shared pool serves instead).
ThreadCache* LocalCache() {
  if (cache_destroyed) return nullptr;
  thread_local ThreadCache cache;
  return &cache;
}

std::array<Allocator* (*)(int), kNumDeviceTypes>& Factories() {
  static std::array<Allocator* (*)(int), kNumDeviceTypes> factories{};
  return factories;
}

}  // namespace

CpuAllocator& CpuAllocator::Get() {
  static auto* allocator = new CpuAllocator;  // lives for the whole process
  return *allocator;
}

void* CpuAllocator::Allocate(size_t bytes) {
  if (bytes > kMaxClassBytes) return nullptr;  // beyond any size class: out of memory
  const int c = SizeClass(bytes);
  allocations_.fetch_add(1, std::memory_order_relaxed);
  ThreadCache* cache = c <= kMaxThreadCachedClass ? LocalCache() : nullptr;
  if (cache != nullptr && !cache->free[c].empty()) {
    void* p = cache->free[c].back();
    cache->free[c].pop_back();
    thread_cache_hits_.fetch_add(1, std::memory_order_relaxed);
    AddInUse(ClassBytes(c));
    return p;
  }
  void* p = Shared().Allocate(bytes);
  if (p != nullptr) AddInUse(ClassBytes(c));
  return p;
}

void CpuAllocator::AddInUse(int64_t bytes) {
  const int64_t now = bytes_in_use_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

void CpuAllocator::ResetPeak() {
  peak_.store(bytes_in_use_.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

void CpuAllocator::Deallocate(void* ptr, size_t bytes) {
  if (ptr == nullptr) return;
  const int c = SizeClass(bytes);
  bytes_in_use_.fetch_sub(ClassBytes(c), std::memory_order_relaxed);
  ThreadCache* cache = c <= kMaxThreadCachedClass ? LocalCache() : nullptr;
  if (cache != nullptr && cache->free[c].size() < kMaxThreadCachedPerClass) {
    cache->free[c].push_back(ptr);
    return;
  }
  Shared().Deallocate(ptr, bytes);
}

CpuAllocator::Stats CpuAllocator::stats() const {
  // A hit is a block from this thread's cache or from the shared pool's free lists.
  return Stats{allocations_.load(), thread_cache_hits_.load() + Shared().stats().pool_hits,
               bytes_in_use_.load(), peak_.load()};
}

void CpuAllocator::EmptyCache() {
  if (ThreadCache* cache = LocalCache()) cache->Flush();
  Shared().Clear();
}

VirtualCpuAllocator::VirtualCpuAllocator(int index) : name_(absl::StrCat("cpu_pool:", index)) {}

VirtualCpuAllocator* VirtualCpuAllocator::Get(int index) {
  static const auto* allocators = [] {
    auto* all = new std::vector<VirtualCpuAllocator*>;  // live for the whole process
    for (int i = 1; i < num_cpu_devices(); ++i) all->push_back(new VirtualCpuAllocator(i));
    return all;
  }();
  if (index < 1 || index > static_cast<int>(allocators->size())) return nullptr;
  return (*allocators)[index - 1];
}

void* VirtualCpuAllocator::Allocate(size_t bytes) {
  void* p = CpuAllocator::Get().Allocate(bytes);
  if (p != nullptr) bytes_in_use_.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed);
  return p;
}

void VirtualCpuAllocator::Deallocate(void* ptr, size_t bytes) {
  bytes_in_use_.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
  CpuAllocator::Get().Deallocate(ptr, bytes);
}

Allocator* AllocatorFor(Device device) {
  if (device.is_host()) return &CpuAllocator::Get();
  if (device.is_cpu()) return VirtualCpuAllocator::Get(device.index());
  auto factory = Factories()[static_cast<int>(device.type())];
  return factory ? factory(device.index()) : nullptr;
}

void RegisterAllocatorFactory(DeviceType type, Allocator* (*factory)(int index)) {
  Factories()[static_cast<int>(type)] = factory;
}

}  // namespace duet
