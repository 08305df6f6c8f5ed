// A size-class free-list pool of memory blocks over a raw backend (malloc/free, cudaMalloc/
// cudaFree). Shared by the CPU allocator and the CUDA caching allocator.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace duet {

// Power-of-two size classes: class c holds blocks of ClassBytes(c) = 64 << c bytes.
inline constexpr int kMinSizeClassLog2 = 6;                     // 64 bytes
inline constexpr int kNumSizeClasses = 40 - kMinSizeClassLog2;  // up to 1 TiB
int SizeClass(size_t bytes);                                    // requires bytes <= kMaxClassBytes
constexpr size_t ClassBytes(int size_class) {
  return size_t{1} << (size_class + kMinSizeClassLog2);
}
inline constexpr size_t kMaxClassBytes = ClassBytes(kNumSizeClasses - 1);

// Keeps freed blocks on one free list per size class, so a steady state of equal-sized
// allocations never reaches the backend. Thread-safe.
class SizeClassPool {
 public:
  struct Backend {
    std::function<void*(size_t bytes)> allocate;  // nullptr when out of memory
    std::function<void(void* ptr)> free;
  };
  struct Stats {
    int64_t allocations = 0;   // Allocate calls within the size classes
    int64_t pool_hits = 0;     // ... served from a free list
    int64_t bytes_in_use = 0;  // size-class bytes handed out and not yet returned
    int64_t bytes_pooled = 0;  // size-class bytes waiting on the free lists
  };

  // Keeps at most `max_pooled_bytes` on the free lists. With `clear_and_retry`, a failed backend
  // allocation frees every pooled block and tries once more (fragmentation across classes, not
  // a real shortage, is the common cause of a failure on a device with a fixed memory size).
  SizeClassPool(Backend backend, size_t max_pooled_bytes, bool clear_and_retry = false);
  ~SizeClassPool() { Clear(); }
  SizeClassPool(const SizeClassPool&) = delete;
  SizeClassPool& operator=(const SizeClassPool&) = delete;

  // A block of ClassBytes(SizeClass(bytes)) bytes; nullptr beyond kMaxClassBytes or when the
  // backend fails.
  void* Allocate(size_t bytes);
  // Returns a block from Allocate(bytes) with the same `bytes`: pooled, or freed beyond the cap.
  void Deallocate(void* ptr, size_t bytes);
  // Frees every pooled block through the backend.
  void Clear();
  Stats stats() const;

 private:
  void* TakeFree(int size_class);
  bool PutFree(int size_class, void* ptr);  // false when the cap does not allow it
  void* AllocateFromBackend(size_t bytes);

  const Backend backend_;
  const size_t max_pooled_bytes_;
  const bool clear_and_retry_;
  std::atomic<int64_t> allocations_{0}, pool_hits_{0}, bytes_in_use_{0};
  // std::mutex, not absl::Mutex: TSan cannot see Debian's Abseil locks (docs/architecture.md).
  mutable std::mutex mu_;
  std::array<std::vector<void*>, kNumSizeClasses> free_;  // guarded by mu_
  size_t pooled_bytes_ = 0;                               // guarded by mu_
};

}  // namespace duet
