// NHWC image-resizing launchers, compiled by nvcc: ResizeBilinear, ResizeNearestNeighbor and
// their gradients, with TensorFlow's coordinate rules (kernels/common/resize_geometry.h, the same
// code the CPU kernels run). The gradients gather per input pixel: each finds, by binary search
// over the monotone coordinate maps, the output rows and columns that read it, so there are no
// atomics and results are deterministic (float sums in another order than the CPU's, so equal
// within rounding). Asynchronous on `stream`.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/cuda/nn/nn_launch_types.h"

namespace duet::cuda {

// Sizes of one resize: images [batch, in_h, in_w, channels] to [batch, out_h, out_w, channels].
// For the gradients, "in" is the original image and "out" the resized one, as in the forward op.
struct ResizeDims {
  int64_t batch = 0, channels = 0;
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  bool align_corners = false, half_pixel_centers = false;
};

// y (float32, [batch, out_h, out_w, c]) = bilinear resize of x; x any NnType.
cudaError_t LaunchResizeBilinear(NnType type, const ResizeDims& d, const void* x, float* y,
                                 cudaStream_t stream);
// dx (`type`, [batch, in_h, in_w, c]) = ResizeBilinearGrad of dy (float32, out shape); float
// types only.
cudaError_t LaunchResizeBilinearGrad(NnType type, const ResizeDims& d, const float* dy, void* dx,
                                     cudaStream_t stream);
// y = nearest-neighbour resize of x, both `type`.
cudaError_t LaunchResizeNearestNeighbor(NnType type, const ResizeDims& d, const void* x, void* y,
                                        cudaStream_t stream);
// dx ([batch, in_h, in_w, c]) = the sum of dy (out shape) over the pixels that copied each.
cudaError_t LaunchResizeNearestNeighborGrad(NnType type, const ResizeDims& d, const void* dy,
                                            void* dx, cudaStream_t stream);

}  // namespace duet::cuda
