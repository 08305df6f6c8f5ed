// Bucketize on CUDA: a binary search per element over the boundaries in device memory, with the
// CPU kernel's comparison (kernels/cpu/math/bucketize_kernel.cc), so both give the same buckets.
#include "kernels/cuda/math/elementwise_common.cu.h"

namespace duet::cuda {
namespace {

template <typename S>
__global__ void BucketizeKernel(const S* __restrict__ x, const float* __restrict__ boundaries,
                                int num_boundaries, int32_t* __restrict__ z, int64_t n) {
  for (int64_t i = GlobalThread<int64_t>(); i < n; i += GridStride<int64_t>()) {
    const S value = x[i];
    int low = 0, high = num_boundaries;  // the first boundary > value is in [low, high]
    while (low < high) {
      const int mid = (low + high) / 2;
      if (value < boundaries[mid]) {
        high = mid;
      } else {
        low = mid + 1;
      }
    }
    z[i] = low;
  }
}

}  // namespace

cudaError_t LaunchBucketize(ElementType type, const void* x, const float* boundaries,
                            int num_boundaries, int32_t* z, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return VisitElementType(type, [&](auto zero) -> cudaError_t {
    using S = decltype(zero);
    if constexpr (std::is_same_v<S, float> || std::is_same_v<S, double> ||
                  std::is_same_v<S, int32_t> || std::is_same_v<S, int64_t>) {
      BucketizeKernel<S><<<BlocksFor(n), kThreads, 0, stream>>>(static_cast<const S*>(x),
                                                                boundaries, num_boundaries, z, n);
      return cudaGetLastError();
    } else {
      return cudaErrorInvalidValue;
    }
  });
}

}  // namespace duet::cuda
