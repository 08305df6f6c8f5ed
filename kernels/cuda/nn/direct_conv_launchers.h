// float64 direct convolutions on the device (kernels/common/direct_conv.h, one thread per result
// element): the fallback of the convolution kernels when cuDNN has no algorithm for a float64
// convolution (conv_kernels.cc). Asynchronous on `stream`; compiled by nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/common/direct_conv.h"

namespace duet::cuda {

// Which of a convolution's results to compute, from which two operands (a, b).
enum class DirectConvResult {
  kOutput,      // the output, from (input, filter)
  kInputGrad,   // the input's gradient, from (filter, output gradient)
  kFilterGrad,  // the filter's gradient, from (input, output gradient)
};

// Writes every element of `result` (the shape `which` names, float64, overwritten).
cudaError_t LaunchDirectConvF64(DirectConvResult which, const DirectConvShape& s, const double* a,
                                const double* b, double* result, cudaStream_t stream);

}  // namespace duet::cuda
