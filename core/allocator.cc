#include "core/allocator.h"

#include <array>
#include <bit>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace duet {
namespace {

constexpr int kMinClassLog2 = 6;                           // 64 bytes
constexpr int kNumClasses = 40 - kMinClassLog2;            // up to 1 TiB
constexpr int kMaxThreadCachedClass = 20 - kMinClassLog2;  // blocks up to 1 MiB
constexpr size_t kMaxThreadCachedPerClass = 16;
constexpr size_t kMaxPooledBytes = size_t{2} << 30;  // beyond this, free instead of caching

int SizeClass(size_t bytes) {
  const size_t rounded = std::bit_ceil(std::max<size_t>(bytes, size_t{1} << kMinClassLog2));
  return std::countr_zero(rounded) - kMinClassLog2;
}

size_t ClassBytes(int size_class) { return size_t{1} << (size_class + kMinClassLog2); }

// Blocks shared by all threads.
class SharedPool {
 public:
  void* Take(int size_class) {
    std::lock_guard<std::mutex> lock(mu_);
    auto& list = free_[size_class];
    if (list.empty()) return nullptr;
    void* p = list.back();
    list.pop_back();
    pooled_bytes_ -= ClassBytes(size_class);
    return p;
  }
  void Put(int size_class, void* p) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (pooled_bytes_ + ClassBytes(size_class) <= kMaxPooledBytes) {
        free_[size_class].push_back(p);
        pooled_bytes_ += ClassBytes(size_class);
        return;
      }
    }
    std::free(p);
  }
  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& list : free_) {
      for (void* p : list) std::free(p);
      list.clear();
    }
    pooled_bytes_ = 0;
  }

 private:
  // std::mutex, not absl::Mutex: TSan cannot see Debian's Abseil locks (docs/architecture.md).
  std::mutex mu_;
  std::array<std::vector<void*>, kNumClasses> free_;  // guarded by mu_
  size_t pooled_bytes_ = 0;                           // guarded by mu_
};

SharedPool& Shared() {
  static auto* pool = new SharedPool;  // never destroyed: thread caches may flush into it late
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
      for (void* p : free[c]) Shared().Put(c, p);
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
  if (bytes > ClassBytes(kNumClasses - 1)) return nullptr;  // beyond any size class: out of memory
  const int c = SizeClass(bytes);
  allocations_.fetch_add(1, std::memory_order_relaxed);
  bytes_in_use_.fetch_add(ClassBytes(c), std::memory_order_relaxed);
  void* p = nullptr;
  ThreadCache* cache = c <= kMaxThreadCachedClass ? LocalCache() : nullptr;
  if (cache != nullptr && !cache->free[c].empty()) {
    p = cache->free[c].back();
    cache->free[c].pop_back();
  }
  if (p == nullptr) p = Shared().Take(c);
  if (p != nullptr) {
    pool_hits_.fetch_add(1, std::memory_order_relaxed);
    return p;
  }
  p = std::aligned_alloc(kBufferAlignment, ClassBytes(c));
  if (p == nullptr) bytes_in_use_.fetch_sub(ClassBytes(c), std::memory_order_relaxed);
  return p;
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
  Shared().Put(c, ptr);
}

CpuAllocator::Stats CpuAllocator::stats() const {
  return Stats{allocations_.load(), pool_hits_.load(), bytes_in_use_.load()};
}

void CpuAllocator::EmptyCache() {
  if (ThreadCache* cache = LocalCache()) cache->Flush();
  Shared().Clear();
}

Allocator* AllocatorFor(Device device) {
  if (device.is_cpu()) return &CpuAllocator::Get();
  auto factory = Factories()[static_cast<int>(device.type())];
  return factory ? factory(device.index()) : nullptr;
}

void RegisterAllocatorFactory(DeviceType type, Allocator* (*factory)(int index)) {
  Factories()[static_cast<int>(type)] = factory;
}

}  // namespace duet
