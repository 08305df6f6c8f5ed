#include <cuda_bf16.h>

#include "kernels/cuda/nn/nn_device_math.cuh"
#include "kernels/cuda/nn/pooling_launchers.h"

namespace duet::cuda {
namespace {

using nn_detail::BlocksFor;
using nn_detail::Compute;
using nn_detail::kThreads;
using nn_detail::Load;
using nn_detail::Store;

struct Window {
  int64_t h_begin, h_end, w_begin, w_end;
};

// Output cell (oh, ow)'s window clipped to the input (PoolGeometry::At).
__device__ Window WindowAt(const PoolDims& d, int64_t oh, int64_t ow) {
  const int64_t h0 = oh * d.stride_h - d.pad_top;
  const int64_t w0 = ow * d.stride_w - d.pad_left;
  return {h0 > 0 ? h0 : 0, min(h0 + d.window_h, d.in_h), w0 > 0 ? w0 : 0,
          min(w0 + d.window_w, d.in_w)};
}

// The flat NHWC index of the first maximum of channel k's window (only strictly greater values
// replace the running maximum, as on the CPU). `image` is the image's first element.
template <typename T>
__device__ int64_t Argmax(const T* x, const PoolDims& d, int64_t image, const Window& w,
                          int64_t k) {
  int64_t best_index = image + (w.h_begin * d.in_w + w.w_begin) * d.channels + k;
  Compute<T> best = Load(x[best_index]);
  for (int64_t h = w.h_begin; h < w.h_end; ++h) {
    for (int64_t c = w.w_begin; c < w.w_end; ++c) {
      const int64_t index = image + (h * d.in_w + c) * d.channels + k;
      const Compute<T> v = Load(x[index]);
      if (v > best) {
        best = v;
        best_index = index;
      }
    }
  }
  return best_index;
}

// Splits a flat NHWC output index into (n, oh, ow, k).
struct OutCell {
  int64_t n, oh, ow, k;
};
__device__ OutCell SplitOut(const PoolDims& d, int64_t i) {
  OutCell c;
  c.k = i % d.channels;
  int64_t rest = i / d.channels;
  c.ow = rest % d.out_w;
  rest /= d.out_w;
  c.oh = rest % d.out_h;
  c.n = rest / d.out_h;
  return c;
}

template <typename T>
__global__ void MaxPoolKernel(PoolDims d, const T* x, T* y, int64_t total) {
  DUET_GRID_STRIDE_LOOP(i, total) {
    const OutCell c = SplitOut(d, i);
    const int64_t image = c.n * d.in_h * d.in_w * d.channels;
    y[i] = x[Argmax(x, d, image, WindowAt(d, c.oh, c.ow), c.k)];
  }
}

template <typename T>
__global__ void MaxPoolGradGradKernel(PoolDims d, const T* x, const T* g, T* out, int64_t total) {
  DUET_GRID_STRIDE_LOOP(i, total) {
    const OutCell c = SplitOut(d, i);
    const int64_t image = c.n * d.in_h * d.in_w * d.channels;
    out[i] = g[Argmax(x, d, image, WindowAt(d, c.oh, c.ow), c.k)];
  }
}

template <typename T>
__global__ void AvgPoolKernel(PoolDims d, const T* x, T* y, int64_t total) {
  DUET_GRID_STRIDE_LOOP(i, total) {
    const OutCell c = SplitOut(d, i);
    const int64_t image = c.n * d.in_h * d.in_w * d.channels;
    const Window w = WindowAt(d, c.oh, c.ow);
    Compute<T> sum = 0;
    for (int64_t h = w.h_begin; h < w.h_end; ++h) {
      for (int64_t col = w.w_begin; col < w.w_end; ++col) {
        sum += Load(x[image + (h * d.in_w + col) * d.channels + c.k]);
      }
    }
    const int64_t count = (w.h_end - w.h_begin) * (w.w_end - w.w_begin);
    y[i] = Store<T>(sum / static_cast<Compute<T>>(count));
  }
}

// The output rows (or columns) whose windows contain input row `i`: [first, last].
__device__ void Covering(int64_t i, int64_t pad, int64_t window, int64_t stride, int64_t out,
                         int64_t* first, int64_t* last) {
  // h0 = o * stride - pad <= i < h0 + window.
  const int64_t lo = i + pad - window + 1;
  *first = lo <= 0 ? 0 : (lo + stride - 1) / stride;
  const int64_t hi = (i + pad) / stride;
  *last = hi < out - 1 ? hi : out - 1;
}

// One thread per input element: sums the gradients of the windows that picked it (kMax) or that
// cover it, each divided by its window's count (kAvg).
template <typename T, bool kMax>
__global__ void PoolGradKernel(PoolDims d, const T* x, const T* dy, T* dx, int64_t total) {
  DUET_GRID_STRIDE_LOOP(i, total) {
    const int64_t k = i % d.channels;
    int64_t rest = i / d.channels;
    const int64_t iw = rest % d.in_w;
    rest /= d.in_w;
    const int64_t ih = rest % d.in_h;
    const int64_t n = rest / d.in_h;
    const int64_t image = n * d.in_h * d.in_w * d.channels;
    int64_t oh0, oh1, ow0, ow1;
    Covering(ih, d.pad_top, d.window_h, d.stride_h, d.out_h, &oh0, &oh1);
    Covering(iw, d.pad_left, d.window_w, d.stride_w, d.out_w, &ow0, &ow1);
    Compute<T> sum = 0;
    for (int64_t oh = oh0; oh <= oh1; ++oh) {
      for (int64_t ow = ow0; ow <= ow1; ++ow) {
        const Window w = WindowAt(d, oh, ow);
        const int64_t o = ((n * d.out_h + oh) * d.out_w + ow) * d.channels + k;
        if constexpr (kMax) {
          if (Argmax(x, d, image, w, k) == i) sum += Load(dy[o]);
        } else {
          const int64_t count = (w.h_end - w.h_begin) * (w.w_end - w.w_begin);
          sum += Load(dy[o]) * (Compute<T>(1) / static_cast<Compute<T>>(count));
        }
      }
    }
    dx[i] = Store<T>(sum);
  }
}

template <typename Fn>
cudaError_t WithType(NnType type, Fn&& fn) {
  switch (type) {
    case NnType::kFloat32:
      return fn(float{});
    case NnType::kFloat64:
      return fn(double{});
    case NnType::kBFloat16:
      return fn(__nv_bfloat16{});
    default:
      return cudaErrorInvalidValue;
  }
}

int64_t OutTotal(const PoolDims& d) { return d.batch * d.out_h * d.out_w * d.channels; }
int64_t InTotal(const PoolDims& d) { return d.batch * d.in_h * d.in_w * d.channels; }

}  // namespace

cudaError_t LaunchMaxPool(NnType type, const PoolDims& d, const void* x, void* y,
                          cudaStream_t stream) {
  const int64_t total = OutTotal(d);
  if (total <= 0) return cudaSuccess;
  return WithType(type, [&](auto zero) {
    using T = decltype(zero);
    MaxPoolKernel<T><<<BlocksFor(total), kThreads, 0, stream>>>(d, static_cast<const T*>(x),
                                                                static_cast<T*>(y), total);
    return cudaGetLastError();
  });
}

cudaError_t LaunchAvgPool(NnType type, const PoolDims& d, const void* x, void* y,
                          cudaStream_t stream) {
  const int64_t total = OutTotal(d);
  if (total <= 0) return cudaSuccess;
  return WithType(type, [&](auto zero) {
    using T = decltype(zero);
    AvgPoolKernel<T><<<BlocksFor(total), kThreads, 0, stream>>>(d, static_cast<const T*>(x),
                                                                static_cast<T*>(y), total);
    return cudaGetLastError();
  });
}

cudaError_t LaunchMaxPoolGrad(NnType type, const PoolDims& d, const void* x, const void* dy,
                              void* dx, cudaStream_t stream) {
  const int64_t total = InTotal(d);
  if (total <= 0) return cudaSuccess;
  return WithType(type, [&](auto zero) {
    using T = decltype(zero);
    PoolGradKernel<T, true><<<BlocksFor(total), kThreads, 0, stream>>>(
        d, static_cast<const T*>(x), static_cast<const T*>(dy), static_cast<T*>(dx), total);
    return cudaGetLastError();
  });
}

cudaError_t LaunchAvgPoolGrad(NnType type, const PoolDims& d, const void* dy, void* dx,
                              cudaStream_t stream) {
  const int64_t total = InTotal(d);
  if (total <= 0) return cudaSuccess;
  return WithType(type, [&](auto zero) {
    using T = decltype(zero);
    PoolGradKernel<T, false><<<BlocksFor(total), kThreads, 0, stream>>>(
        d, nullptr, static_cast<const T*>(dy), static_cast<T*>(dx), total);
    return cudaGetLastError();
  });
}

cudaError_t LaunchMaxPoolGradGrad(NnType type, const PoolDims& d, const void* x, const void* g,
                                  void* out, cudaStream_t stream) {
  const int64_t total = OutTotal(d);
  if (total <= 0) return cudaSuccess;
  return WithType(type, [&](auto zero) {
    using T = decltype(zero);
    MaxPoolGradGradKernel<T><<<BlocksFor(total), kThreads, 0, stream>>>(
        d, static_cast<const T*>(x), static_cast<const T*>(g), static_cast<T*>(out), total);
    return cudaGetLastError();
  });
}

}  // namespace duet::cuda
