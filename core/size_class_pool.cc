#include "core/size_class_pool.h"

#include <algorithm>
#include <bit>

namespace duet {

int SizeClass(size_t bytes) {
  const size_t rounded = std::bit_ceil(std::max<size_t>(bytes, size_t{1} << kMinSizeClassLog2));
  return std::countr_zero(rounded) - kMinSizeClassLog2;
}

SizeClassPool::SizeClassPool(Backend backend, size_t max_pooled_bytes, bool clear_and_retry)
    : backend_(std::move(backend)),
      max_pooled_bytes_(max_pooled_bytes),
      clear_and_retry_(clear_and_retry) {}

void* SizeClassPool::Allocate(size_t bytes) {
  if (bytes > kMaxClassBytes) return nullptr;  // beyond any size class: out of memory
  const int c = SizeClass(bytes);
  allocations_.fetch_add(1, std::memory_order_relaxed);
  if (void* p = TakeFree(c)) {
    pool_hits_.fetch_add(1, std::memory_order_relaxed);
    bytes_in_use_.fetch_add(ClassBytes(c), std::memory_order_relaxed);
    return p;
  }
  void* p = AllocateFromBackend(ClassBytes(c));
  if (p != nullptr) bytes_in_use_.fetch_add(ClassBytes(c), std::memory_order_relaxed);
  return p;
}

void SizeClassPool::Deallocate(void* ptr, size_t bytes) {
  if (ptr == nullptr) return;
  const int c = SizeClass(bytes);
  bytes_in_use_.fetch_sub(ClassBytes(c), std::memory_order_relaxed);
  if (!PutFree(c, ptr)) backend_.free(ptr);
}

void SizeClassPool::Clear() {
  std::vector<void*> blocks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& list : free_) {
      blocks.insert(blocks.end(), list.begin(), list.end());
      list.clear();
    }
    pooled_bytes_ = 0;
  }
  // Outside the lock: backend frees may be slow (cudaFree synchronizes the device).
  for (void* p : blocks) backend_.free(p);
}

SizeClassPool::Stats SizeClassPool::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return Stats{allocations_.load(), pool_hits_.load(), bytes_in_use_.load(),
               static_cast<int64_t>(pooled_bytes_)};
}

void* SizeClassPool::TakeFree(int size_class) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& list = free_[size_class];
  if (list.empty()) return nullptr;
  void* p = list.back();
  list.pop_back();
  pooled_bytes_ -= ClassBytes(size_class);
  return p;
}

bool SizeClassPool::PutFree(int size_class, void* ptr) {
  std::lock_guard<std::mutex> lock(mu_);
  if (pooled_bytes_ + ClassBytes(size_class) > max_pooled_bytes_) return false;
  free_[size_class].push_back(ptr);
  pooled_bytes_ += ClassBytes(size_class);
  return true;
}

void* SizeClassPool::AllocateFromBackend(size_t bytes) {
  void* p = backend_.allocate(bytes);
  if (p != nullptr || !clear_and_retry_) return p;
  Clear();
  return backend_.allocate(bytes);
}

}  // namespace duet
