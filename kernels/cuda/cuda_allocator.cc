#include "kernels/cuda/cuda_allocator.h"

#include <cuda_runtime_api.h>

#include <limits>
#include <memory>
#include <vector>

#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/cuda_device.h"

namespace duet {
namespace {

// Makes cuda:`index` current for a scope and restores the caller's device: allocation must not
// change which device the calling thread's later CUDA calls go to.
class ScopedDevice {
 public:
  explicit ScopedDevice(int index) {
    if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
    ok_ = previous_ == index || cudaSetDevice(index) == cudaSuccess;
  }
  ~ScopedDevice() {
    if (ok_ && previous_ >= 0) cudaSetDevice(previous_);
  }
  bool ok() const { return ok_; }

 private:
  int previous_ = -1;
  bool ok_ = false;
};

void* RawMalloc(int index, size_t bytes) {
  ScopedDevice device(index);
  void* p = nullptr;
  if (!device.ok() || cudaMalloc(&p, bytes) != cudaSuccess) {
    cudaGetLastError();  // clear the error so later CUDA calls start clean
    return nullptr;
  }
  return p;
}

void RawFree(int index, void* p) {
  ScopedDevice device(index);
  if (cudaFree(p) != cudaSuccess) cudaGetLastError();
}

Allocator* CudaAllocatorFactory(int index) { return CudaAllocator::Get(index); }

// Static registration (the library is alwayslink): AllocatorFor(Device::cuda(i)) finds it.
const bool registered = [] {
  RegisterAllocatorFactory(DeviceType::kCuda, &CudaAllocatorFactory);
  return true;
}();

}  // namespace

// No cap on pooled bytes (halved only so the cap check cannot overflow): like PyTorch's caching
// allocator, cached blocks are released when cudaMalloc fails (clear_and_retry) or on
// empty_cache(), not on every free.
CudaAllocator::CudaAllocator(int index)
    : index_(index),
      pool_({[index](size_t bytes) { return RawMalloc(index, bytes); },
             [index](void* p) { RawFree(index, p); }},
            std::numeric_limits<size_t>::max() / 2, /*clear_and_retry=*/true) {}

CudaAllocator* CudaAllocator::Get(int index) {
  // Never destroyed: tensors in static storage may free device memory after main returns.
  static const auto* allocators = [] {
    auto* all = new std::vector<CudaAllocator*>;
    for (int i = 0; i < cuda::DeviceCount(); ++i) all->push_back(new CudaAllocator(i));
    return all;
  }();
  if (index < 0 || index >= static_cast<int>(allocators->size())) return nullptr;
  return (*allocators)[index];
}

absl::Status CudaAllocator::CopyWithin(void* dst, const void* src, size_t bytes) {
  const Device device = Device::cuda(index_);
  return cuda::CopyBytes(dst, device, src, device, bytes);
}

}  // namespace duet
