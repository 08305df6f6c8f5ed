#include "kernels/cuda/nn/direct_conv_launchers.h"
#include "kernels/cuda/nn/nn_device_math.cuh"

namespace duet::cuda {
namespace {

using nn_detail::BlocksFor;
using nn_detail::kThreads;

template <DirectConvResult kWhich>
__global__ void DirectConvKernel(DirectConvShape s, const double* a, const double* b,
                                 double* result, int64_t count) {
  DUET_GRID_STRIDE_LOOP(i, count) {
    if constexpr (kWhich == DirectConvResult::kOutput) {
      result[i] = DirectConvOutputAt(s, a, b, i);
    } else if constexpr (kWhich == DirectConvResult::kInputGrad) {
      result[i] = DirectConvInputGradAt(s, a, b, i);
    } else {
      result[i] = DirectConvFilterGradAt(s, a, b, i);
    }
  }
}

template <DirectConvResult kWhich>
cudaError_t Launch(const DirectConvShape& s, const double* a, const double* b, double* result,
                   int64_t count, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  DirectConvKernel<kWhich><<<BlocksFor(count), kThreads, 0, stream>>>(s, a, b, result, count);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchDirectConvF64(DirectConvResult which, const DirectConvShape& s, const double* a,
                                const double* b, double* result, cudaStream_t stream) {
  switch (which) {
    case DirectConvResult::kOutput:
      return Launch<DirectConvResult::kOutput>(s, a, b, result, s.output_elements(), stream);
    case DirectConvResult::kInputGrad:
      return Launch<DirectConvResult::kInputGrad>(s, a, b, result, s.input_elements(), stream);
    case DirectConvResult::kFilterGrad:
      return Launch<DirectConvResult::kFilterGrad>(s, a, b, result, s.filter_elements(), stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace duet::cuda
