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
  int64_t begin[3], end[3];
};

// Output cell o's window clipped to the input (PoolGeometry::At).
__device__ Window WindowAt(const PoolDims& d, const int64_t* o) {
  Window w;
  for (int k = 0; k < 3; ++k) {
    const int64_t first = o[k] * d.stride[k] - d.pad[k];
    w.begin[k] = first > 0 ? first : 0;
    w.end[k] = min(first + d.window[k], d.in[k]);
  }
  return w;
}

__device__ int64_t Cells(const Window& w) {
  return (w.end[0] - w.begin[0]) * (w.end[1] - w.begin[1]) * (w.end[2] - w.begin[2]);
}

// The flat NDHWC index of input cell (z, y, x), channel k, in the image starting at `image`.
__device__ int64_t InIndex(const PoolDims& d, int64_t image, int64_t z, int64_t y, int64_t x,
                           int64_t k) {
  return image + ((z * d.in[1] + y) * d.in[2] + x) * d.channels + k;
}

// The flat NDHWC index of the first maximum of channel k's window (only strictly greater values
// replace the running maximum, as on the CPU). `image` is the image's first element.
template <typename T>
__device__ int64_t Argmax(const T* x, const PoolDims& d, int64_t image, const Window& w,
                          int64_t k) {
  int64_t best_index = InIndex(d, image, w.begin[0], w.begin[1], w.begin[2], k);
  Compute<T> best = Load(x[best_index]);
  for (int64_t z = w.begin[0]; z < w.end[0]; ++z) {
    for (int64_t y = w.begin[1]; y < w.end[1]; ++y) {
      for (int64_t c = w.begin[2]; c < w.end[2]; ++c) {
        const int64_t index = InIndex(d, image, z, y, c, k);
        const Compute<T> v = Load(x[index]);
        if (v > best) {
          best = v;
          best_index = index;
        }
      }
    }
  }
  return best_index;
}

// A flat NDHWC index split into (n, spatial position, k) over dims `size` ([depth, height,
// width]: the input's or the output's).
struct Cell {
  int64_t n, at[3], k;
};
__device__ Cell Split(const PoolDims& d, const int64_t* size, int64_t i) {
  Cell c;
  c.k = i % d.channels;
  int64_t rest = i / d.channels;
  for (int k = 2; k >= 0; --k) {
    c.at[k] = rest % size[k];
    rest /= size[k];
  }
  c.n = rest;
  return c;
}

__device__ int64_t ImageStart(const PoolDims& d, int64_t n) {
  return n * d.in[0] * d.in[1] * d.in[2] * d.channels;
}

template <typename T>
__global__ void MaxPoolKernel(PoolDims d, const T* x, T* y, int64_t total) {
  DUET_GRID_STRIDE_LOOP(i, total) {
    const Cell c = Split(d, d.out, i);
    y[i] = x[Argmax(x, d, ImageStart(d, c.n), WindowAt(d, c.at), c.k)];
  }
}

template <typename T>
__global__ void MaxPoolGradGradKernel(PoolDims d, const T* x, const T* g, T* out, int64_t total) {
  DUET_GRID_STRIDE_LOOP(i, total) {
    const Cell c = Split(d, d.out, i);
    out[i] = g[Argmax(x, d, ImageStart(d, c.n), WindowAt(d, c.at), c.k)];
  }
}

template <typename T>
__global__ void AvgPoolKernel(PoolDims d, const T* x, T* y, int64_t total) {
  DUET_GRID_STRIDE_LOOP(i, total) {
    const Cell c = Split(d, d.out, i);
    const int64_t image = ImageStart(d, c.n);
    const Window w = WindowAt(d, c.at);
    Compute<T> sum = 0;
    for (int64_t z = w.begin[0]; z < w.end[0]; ++z) {
      for (int64_t row = w.begin[1]; row < w.end[1]; ++row) {
        for (int64_t col = w.begin[2]; col < w.end[2]; ++col) {
          sum += Load(x[InIndex(d, image, z, row, col, c.k)]);
        }
      }
    }
    y[i] = Store<T>(sum / static_cast<Compute<T>>(Cells(w)));
  }
}

// The output positions along one dim whose windows contain input position `i`: [first, last].
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
    const Cell c = Split(d, d.in, i);
    const int64_t image = ImageStart(d, c.n);
    int64_t first[3], last[3];
    for (int k = 0; k < 3; ++k) {
      Covering(c.at[k], d.pad[k], d.window[k], d.stride[k], d.out[k], &first[k], &last[k]);
    }
    Compute<T> sum = 0;
    int64_t o[3];
    for (o[0] = first[0]; o[0] <= last[0]; ++o[0]) {
      for (o[1] = first[1]; o[1] <= last[1]; ++o[1]) {
        for (o[2] = first[2]; o[2] <= last[2]; ++o[2]) {
          const Window w = WindowAt(d, o);
          const int64_t out_index =
              (((c.n * d.out[0] + o[0]) * d.out[1] + o[1]) * d.out[2] + o[2]) * d.channels + c.k;
          if constexpr (kMax) {
            if (Argmax(x, d, image, w, c.k) == i) sum += Load(dy[out_index]);
          } else {
            sum += Load(dy[out_index]) * (Compute<T>(1) / static_cast<Compute<T>>(Cells(w)));
          }
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

int64_t OutTotal(const PoolDims& d) {
  return d.batch * d.out[0] * d.out[1] * d.out[2] * d.channels;
}
int64_t InTotal(const PoolDims& d) { return d.batch * d.in[0] * d.in[1] * d.in[2] * d.channels; }

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
