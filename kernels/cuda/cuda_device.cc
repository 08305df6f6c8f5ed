#include "kernels/cuda/cuda_device.h"

#include <cuda_runtime_api.h>

#include "core/device.h"
#include "kernels/cuda/cuda_allocator.h"

namespace duet::cuda {
namespace {

class CudaRuntime final : public DeviceRuntime {
 public:
  int device_count() const override { return DeviceCount(); }
  void EmptyCache() override {
    for (int i = 0; i < DeviceCount(); ++i) CudaAllocator::Get(i)->EmptyCache();
  }
  void SynchronizeDevice(int index) override {
    int current = -1;
    if (cudaGetDevice(&current) != cudaSuccess) current = -1;
    if (cudaSetDevice(index) == cudaSuccess) cudaDeviceSynchronize();
    if (current >= 0) cudaSetDevice(current);
    cudaGetLastError();  // an error here resurfaces at the next synchronizing call
  }
};

const bool registered = [] {
  RegisterDeviceRuntime(DeviceType::kCuda, new CudaRuntime);
  return true;
}();

}  // namespace

int DeviceCount() {
  // Asked once: the answer cannot change while the process runs, and the first CUDA call is slow.
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();  // clear the sticky error so later CUDA calls start clean
      return 0;
    }
    return n;
  }();
  return count;
}

}  // namespace duet::cuda
