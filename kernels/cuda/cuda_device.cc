#include "kernels/cuda/cuda_device.h"

#include <cuda_runtime_api.h>

#include <cstdio>

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
    const cudaError_t error = cudaGetDeviceCount(&n);
    if (error == cudaSuccess) return n;
    cudaGetLastError();  // clear the sticky error so later CUDA calls start clean
    // Note [Why no GPU]: no driver or no device is the normal CPU-only machine, said nowhere; a
    // driver that is there but unusable (too old for this CUDA runtime, a broken install, no
    // permission) is a surprise on a GPU machine, said once, since num_gpus() alone is just 0.
    int driver = 0;
    if (error != cudaErrorNoDevice && cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0) {
      std::fprintf(stderr,
                   "duet: the CUDA driver (%d) is there, but no GPU is usable: cudaGetDeviceCount "
                   "failed with %s (%s); num_gpus() is 0\n",
                   driver, cudaGetErrorName(error), cudaGetErrorString(error));
    }
    cudaGetLastError();
    return 0;
  }();
  return count;
}

}  // namespace duet::cuda
