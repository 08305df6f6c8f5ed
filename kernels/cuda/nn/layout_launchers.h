// Data movement launchers for the cuDNN convolutions, compiled by nvcc: filter layout changes
// (duet's HWIO <-> cuDNN's KRSC) and zero padding / cropping of NHWC images (cuDNN pads
// symmetrically; TensorFlow's SAME and EXPLICIT padding may not be). They copy elements of
// `elem_size` bytes (2, 4 or 8) as bits, so they serve every float type; asynchronous on `stream`.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace duet::cuda {

// dst [cols, rows] = transpose of src [rows, cols] (row-major).
cudaError_t LaunchTranspose2D(size_t elem_size, const void* src, void* dst, int64_t rows,
                              int64_t cols, cudaStream_t stream);

// dst [n, dst_h, dst_w, c] = src [n, src_h, src_w, c] placed at (top, left), zeros around it
// (dst_h >= top + src_h, dst_w >= left + src_w).
cudaError_t LaunchPadNhwc(size_t elem_size, const void* src, void* dst, int64_t n, int64_t src_h,
                          int64_t src_w, int64_t c, int64_t dst_h, int64_t dst_w, int64_t top,
                          int64_t left, cudaStream_t stream);

// dst [n, dst_h, dst_w, c] = the window of src [n, src_h, src_w, c] starting at (top, left).
cudaError_t LaunchCropNhwc(size_t elem_size, const void* src, void* dst, int64_t n, int64_t src_h,
                           int64_t src_w, int64_t c, int64_t dst_h, int64_t dst_w, int64_t top,
                           int64_t left, cudaStream_t stream);

}  // namespace duet::cuda
