#include "kernels/cuda/cuda_device.h"

#include <cuda_runtime_api.h>

namespace duet {

int num_gpus() {
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

}  // namespace duet
