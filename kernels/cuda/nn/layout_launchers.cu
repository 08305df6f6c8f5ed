#include "kernels/cuda/nn/layout_launchers.h"
#include "kernels/cuda/nn/nn_device_math.cuh"

namespace duet::cuda {
namespace {

using nn_detail::BlocksFor;
using nn_detail::kThreads;

template <typename W>
__global__ void Transpose2DKernel(const W* src, W* dst, int64_t rows, int64_t cols) {
  // One thread per destination element: writes coalesce, reads stride (filters are small).
  DUET_GRID_STRIDE_LOOP(i, rows * cols) {
    const int64_t r = i % rows, c = i / rows;
    dst[i] = src[r * cols + c];
  }
}

template <typename W>
__global__ void PadKernel(const W* src, W* dst, int64_t n, int64_t src_h, int64_t src_w, int64_t c,
                          int64_t dst_h, int64_t dst_w, int64_t top, int64_t left) {
  DUET_GRID_STRIDE_LOOP(i, n * dst_h * dst_w * c) {
    const int64_t k = i % c;
    int64_t rest = i / c;
    const int64_t x = rest % dst_w - left;
    rest /= dst_w;
    const int64_t y = rest % dst_h - top;
    const int64_t b = rest / dst_h;
    dst[i] = (y >= 0 && y < src_h && x >= 0 && x < src_w)
                 ? src[((b * src_h + y) * src_w + x) * c + k]
                 : W(0);
  }
}

template <typename W>
__global__ void CropKernel(const W* src, W* dst, int64_t n, int64_t src_h, int64_t src_w, int64_t c,
                           int64_t dst_h, int64_t dst_w, int64_t top, int64_t left) {
  DUET_GRID_STRIDE_LOOP(i, n * dst_h * dst_w * c) {
    const int64_t k = i % c;
    int64_t rest = i / c;
    const int64_t x = rest % dst_w + left;
    rest /= dst_w;
    const int64_t y = rest % dst_h + top;
    const int64_t b = rest / dst_h;
    dst[i] = src[((b * src_h + y) * src_w + x) * c + k];
  }
}

// Calls fn(W{}) with W the unsigned integer of elem_size bytes.
template <typename Fn>
cudaError_t WithWord(size_t elem_size, Fn&& fn) {
  switch (elem_size) {
    case 2:
      return fn(uint16_t{});
    case 4:
      return fn(uint32_t{});
    case 8:
      return fn(uint64_t{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t LaunchTranspose2D(size_t elem_size, const void* src, void* dst, int64_t rows,
                              int64_t cols, cudaStream_t stream) {
  const int64_t n = rows * cols;
  if (n <= 0) return cudaSuccess;
  return WithWord(elem_size, [&](auto w) {
    using W = decltype(w);
    Transpose2DKernel<<<BlocksFor(n), kThreads, 0, stream>>>(static_cast<const W*>(src),
                                                             static_cast<W*>(dst), rows, cols);
    return cudaGetLastError();
  });
}

cudaError_t LaunchPadNhwc(size_t elem_size, const void* src, void* dst, int64_t n, int64_t src_h,
                          int64_t src_w, int64_t c, int64_t dst_h, int64_t dst_w, int64_t top,
                          int64_t left, cudaStream_t stream) {
  const int64_t total = n * dst_h * dst_w * c;
  if (total <= 0) return cudaSuccess;
  return WithWord(elem_size, [&](auto w) {
    using W = decltype(w);
    PadKernel<<<BlocksFor(total), kThreads, 0, stream>>>(static_cast<const W*>(src),
                                                         static_cast<W*>(dst), n, src_h, src_w, c,
                                                         dst_h, dst_w, top, left);
    return cudaGetLastError();
  });
}

cudaError_t LaunchCropNhwc(size_t elem_size, const void* src, void* dst, int64_t n, int64_t src_h,
                           int64_t src_w, int64_t c, int64_t dst_h, int64_t dst_w, int64_t top,
                           int64_t left, cudaStream_t stream) {
  const int64_t total = n * dst_h * dst_w * c;
  if (total <= 0) return cudaSuccess;
  return WithWord(elem_size, [&](auto w) {
    using W = decltype(w);
    CropKernel<<<BlocksFor(total), kThreads, 0, stream>>>(static_cast<const W*>(src),
                                                          static_cast<W*>(dst), n, src_h, src_w, c,
                                                          dst_h, dst_w, top, left);
    return cudaGetLastError();
  });
}

}  // namespace duet::cuda
