#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/common/resize_geometry.h"
#include "kernels/cuda/nn/nn_device_math.cuh"
#include "kernels/cuda/nn/resize_launchers.h"

namespace duet::cuda {
namespace {

using nn_detail::BlocksFor;
using nn_detail::Compute;
using nn_detail::kThreads;
using nn_detail::Load;
using nn_detail::Store;

// One axis of a resize: in_size input pixels to out_size output pixels.
struct Axis {
  int64_t in_size, out_size;
  float scale;
  bool align_corners, half_pixel_centers;
};

__device__ Axis AxisOf(const ResizeDims& d, bool height) {
  Axis a;
  a.in_size = height ? d.in_h : d.in_w;
  a.out_size = height ? d.out_h : d.out_w;
  a.scale = duet::ResizeScale(a.in_size, a.out_size, d.align_corners);
  a.align_corners = d.align_corners;
  a.half_pixel_centers = d.half_pixel_centers;
  return a;
}

__device__ LinearTap Tap(const Axis& a, int64_t i) {
  return duet::BilinearTap(i, a.scale, a.half_pixel_centers, a.in_size);
}

__device__ int64_t Nearest(const Axis& a, int64_t i) {
  return duet::NearestIndex(i, a.scale, a.half_pixel_centers, a.align_corners, a.in_size);
}

// The first output index in [0, out_size) whose key is >= target (out_size if none); key is
// non-decreasing in the index.
template <typename Key>
__device__ int64_t FirstAtLeast(int64_t out_size, int64_t target, Key key) {
  int64_t lo = 0, hi = out_size;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (key(mid) >= target) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

// The output indices [begin, end) whose bilinear taps touch input index p.
__device__ void BilinearRange(const Axis& a, int64_t p, int64_t* begin, int64_t* end) {
  *begin = FirstAtLeast(a.out_size, p, [&](int64_t i) { return Tap(a, i).upper; });
  *end = FirstAtLeast(a.out_size, p + 1, [&](int64_t i) { return Tap(a, i).lower; });
}

struct Cell {
  int64_t n, h, w, k;
};
__device__ Cell Split(int64_t i, int64_t height, int64_t width, int64_t channels) {
  Cell c;
  c.k = i % channels;
  int64_t rest = i / channels;
  c.w = rest % width;
  rest /= width;
  c.h = rest % height;
  c.n = rest / height;
  return c;
}

template <typename T>
__device__ float AsFloat(T v) {
  return static_cast<float>(Load(v));
}

template <typename T>
__global__ void ResizeBilinearKernel(ResizeDims d, const T* x, float* y, int64_t total) {
  const Axis ah = AxisOf(d, true), aw = AxisOf(d, false);
  DUET_GRID_STRIDE_LOOP(i, total) {
    const Cell c = Split(i, d.out_h, d.out_w, d.channels);
    const LinearTap ty = Tap(ah, c.h), tx = Tap(aw, c.w);
    const int64_t image = c.n * d.in_h;
    auto at = [&](int64_t h, int64_t w) {
      return AsFloat(x[((image + h) * d.in_w + w) * d.channels + c.k]);
    };
    y[i] = duet::BilinearLerp(at(ty.lower, tx.lower), at(ty.lower, tx.upper),
                              at(ty.upper, tx.lower), at(ty.upper, tx.upper), tx.lerp, ty.lerp);
  }
}

template <typename T>
__global__ void ResizeBilinearGradKernel(ResizeDims d, const float* dy, T* dx, int64_t total) {
  const Axis ah = AxisOf(d, true), aw = AxisOf(d, false);
  DUET_GRID_STRIDE_LOOP(i, total) {
    const Cell c = Split(i, d.in_h, d.in_w, d.channels);
    int64_t h0, h1, w0, w1;
    BilinearRange(ah, c.h, &h0, &h1);
    BilinearRange(aw, c.w, &w0, &w1);
    // Each tap's term is rounded to float as the CPU kernel rounds it (dy * y weight * x weight,
    // one term per coinciding tap), so float64 results agree with the CPU's to summation order.
    Compute<T> sum = 0;
    for (int64_t oh = h0; oh < h1; ++oh) {
      const LinearTap ty = Tap(ah, oh);
      for (int64_t ow = w0; ow < w1; ++ow) {
        const LinearTap tx = Tap(aw, ow);
        const float g = dy[((c.n * d.out_h + oh) * d.out_w + ow) * d.channels + c.k];
        const float inv_y = 1.0f - ty.lerp, inv_x = 1.0f - tx.lerp;
        if (ty.lower == c.h) {
          if (tx.lower == c.w) sum += static_cast<Compute<T>>(g * inv_y * inv_x);
          if (tx.upper == c.w) sum += static_cast<Compute<T>>(g * inv_y * tx.lerp);
        }
        if (ty.upper == c.h) {
          if (tx.lower == c.w) sum += static_cast<Compute<T>>(g * ty.lerp * inv_x);
          if (tx.upper == c.w) sum += static_cast<Compute<T>>(g * ty.lerp * tx.lerp);
        }
      }
    }
    dx[i] = Store<T>(sum);
  }
}

template <typename T>
__global__ void ResizeNearestKernel(ResizeDims d, const T* x, T* y, int64_t total) {
  const Axis ah = AxisOf(d, true), aw = AxisOf(d, false);
  DUET_GRID_STRIDE_LOOP(i, total) {
    const Cell c = Split(i, d.out_h, d.out_w, d.channels);
    y[i] = x[((c.n * d.in_h + Nearest(ah, c.h)) * d.in_w + Nearest(aw, c.w)) * d.channels + c.k];
  }
}

template <typename T>
__global__ void ResizeNearestGradKernel(ResizeDims d, const T* dy, T* dx, int64_t total) {
  const Axis ah = AxisOf(d, true), aw = AxisOf(d, false);
  DUET_GRID_STRIDE_LOOP(i, total) {
    const Cell c = Split(i, d.in_h, d.in_w, d.channels);
    const int64_t h0 = FirstAtLeast(d.out_h, c.h, [&](int64_t o) { return Nearest(ah, o); });
    const int64_t h1 = FirstAtLeast(d.out_h, c.h + 1, [&](int64_t o) { return Nearest(ah, o); });
    const int64_t w0 = FirstAtLeast(d.out_w, c.w, [&](int64_t o) { return Nearest(aw, o); });
    const int64_t w1 = FirstAtLeast(d.out_w, c.w + 1, [&](int64_t o) { return Nearest(aw, o); });
    Compute<T> sum = 0;
    for (int64_t oh = h0; oh < h1; ++oh) {
      for (int64_t ow = w0; ow < w1; ++ow) {
        sum += Load(dy[((c.n * d.out_h + oh) * d.out_w + ow) * d.channels + c.k]);
      }
    }
    dx[i] = Store<T>(sum);
  }
}

template <typename Fn>
cudaError_t WithType(NnType type, bool floats_only, Fn&& fn) {
  switch (type) {
    case NnType::kFloat32:
      return fn(float{});
    case NnType::kFloat64:
      return fn(double{});
    case NnType::kFloat16:
      return fn(__half{});
    case NnType::kBFloat16:
      return fn(__nv_bfloat16{});
    case NnType::kInt32:
      return floats_only ? cudaErrorInvalidValue : fn(int32_t{});
    case NnType::kInt64:
      return floats_only ? cudaErrorInvalidValue : fn(int64_t{});
  }
  return cudaErrorInvalidValue;
}

int64_t OutTotal(const ResizeDims& d) { return d.batch * d.out_h * d.out_w * d.channels; }
int64_t InTotal(const ResizeDims& d) { return d.batch * d.in_h * d.in_w * d.channels; }

}  // namespace

cudaError_t LaunchResizeBilinear(NnType type, const ResizeDims& d, const void* x, float* y,
                                 cudaStream_t stream) {
  const int64_t total = OutTotal(d);
  if (total <= 0) return cudaSuccess;
  return WithType(type, false, [&](auto zero) {
    using T = decltype(zero);
    ResizeBilinearKernel<T>
        <<<BlocksFor(total), kThreads, 0, stream>>>(d, static_cast<const T*>(x), y, total);
    return cudaGetLastError();
  });
}

cudaError_t LaunchResizeBilinearGrad(NnType type, const ResizeDims& d, const float* dy, void* dx,
                                     cudaStream_t stream) {
  const int64_t total = InTotal(d);
  if (total <= 0) return cudaSuccess;
  return WithType(type, true, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, __half> ||
                  std::is_same_v<T, __nv_bfloat16>) {
      ResizeBilinearGradKernel<T>
          <<<BlocksFor(total), kThreads, 0, stream>>>(d, dy, static_cast<T*>(dx), total);
      return cudaGetLastError();
    } else {
      return cudaErrorInvalidValue;
    }
  });
}

cudaError_t LaunchResizeNearestNeighbor(NnType type, const ResizeDims& d, const void* x, void* y,
                                        cudaStream_t stream) {
  const int64_t total = OutTotal(d);
  if (total <= 0) return cudaSuccess;
  return WithType(type, false, [&](auto zero) {
    using T = decltype(zero);
    ResizeNearestKernel<T><<<BlocksFor(total), kThreads, 0, stream>>>(d, static_cast<const T*>(x),
                                                                      static_cast<T*>(y), total);
    return cudaGetLastError();
  });
}

cudaError_t LaunchResizeNearestNeighborGrad(NnType type, const ResizeDims& d, const void* dy,
                                            void* dx, cudaStream_t stream) {
  const int64_t total = InTotal(d);
  if (total <= 0) return cudaSuccess;
  return WithType(type, false, [&](auto zero) {
    using T = decltype(zero);
    ResizeNearestGradKernel<T><<<BlocksFor(total), kThreads, 0, stream>>>(
        d, static_cast<const T*>(dy), static_cast<T*>(dx), total);
    return cudaGetLastError();
  });
}

}  // namespace duet::cuda
