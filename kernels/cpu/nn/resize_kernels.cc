// ResizeBilinear, ResizeNearestNeighbor and their gradients on the CPU: plain loops over NHWC
// rows, split over the thread pool (the gradients by image, since their sums overlap within one).
// Not oneDNN's resampling primitive: its linear and nearest modes place samples at pixel centers
// only (TensorFlow's half_pixel_centers), with their own rounding for nearest, and it has neither
// align_corners nor TensorFlow's legacy corner rule, nor float64; TensorFlow's exact float
// coordinate arithmetic (kernels/common/resize_geometry.h) is what Keras models freeze to.
#include <type_traits>
#include <vector>

#include "core/int_values.h"
#include "kernels/common/resize_geometry.h"
#include "kernels/kernel_registry.h"
#include "ops/nn/nn_attrs.h"

namespace duet {
namespace {

// Sizes of one resize: images [batch, in_h, in_w, channels] to [batch, out_h, out_w, channels].
struct ResizeDims {
  int64_t batch, in_h, in_w, out_h, out_w, channels;
  bool align_corners, half_pixel_centers;
  float scale_h, scale_w;
};

ResizeDims DimsOf(const KernelContext& ctx, const Shape& in, const Shape& out) {
  ResizeDims d{in.dim(0),
               in.dim(1),
               in.dim(2),
               out.dim(1),
               out.dim(2),
               in.dim(3),
               ctx.attr(ResizeAttrs::kAlignCorners),
               ctx.attr(ResizeAttrs::kHalfPixelCenters),
               0,
               0};
  d.scale_h = ResizeScale(d.in_h, d.out_h, d.align_corners);
  d.scale_w = ResizeScale(d.in_w, d.out_w, d.align_corners);
  return d;
}

std::vector<LinearTap> Taps(int64_t out_size, float scale, bool half_pixel, int64_t in_size) {
  std::vector<LinearTap> taps(out_size);
  for (int64_t i = 0; i < out_size; ++i) taps[i] = BilinearTap(i, scale, half_pixel, in_size);
  return taps;
}

std::vector<int64_t> Nearest(int64_t out_size, float scale, const ResizeDims& d, int64_t in_size) {
  std::vector<int64_t> index(out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    index[i] = NearestIndex(i, scale, d.half_pixel_centers, d.align_corners, in_size);
  }
  return index;
}

// float16 and bfloat16 sums are kept in float and rounded once; float64 in double.
template <typename T>
using Acc = std::conditional_t<std::is_same_v<T, double>, double,
                               std::conditional_t<std::is_integral_v<T>, T, float>>;

template <typename T>
absl::Status ResizeBilinearKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const ResizeDims d = DimsOf(ctx, x.shape(), out.shape());
  const std::vector<LinearTap> ys = Taps(d.out_h, d.scale_h, d.half_pixel_centers, d.in_h);
  const std::vector<LinearTap> xs = Taps(d.out_w, d.scale_w, d.half_pixel_centers, d.in_w);
  const T* in = x.data<T>();
  float* o = out.mutable_data<float>();
  const int64_t c = d.channels;
  ctx.pool().ParallelFor(d.batch * d.out_h, 1, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t b = row / d.out_h;
      const LinearTap& ty = ys[row % d.out_h];
      const T* top = in + (b * d.in_h + ty.lower) * d.in_w * c;
      const T* bottom = in + (b * d.in_h + ty.upper) * d.in_w * c;
      float* dst = o + row * d.out_w * c;
      for (int64_t j = 0; j < d.out_w; ++j) {
        const LinearTap& tx = xs[j];
        const T* tl = top + tx.lower * c;
        const T* tr = top + tx.upper * c;
        const T* bl = bottom + tx.lower * c;
        const T* br = bottom + tx.upper * c;
        for (int64_t k = 0; k < c; ++k) {
          dst[j * c + k] =
              BilinearLerp(static_cast<float>(tl[k]), static_cast<float>(tr[k]),
                           static_cast<float>(bl[k]), static_cast<float>(br[k]), tx.lerp, ty.lerp);
        }
      }
    }
  });
  return absl::OkStatus();
}

// TensorFlow's loop order and float weights, so float32 sums match its kernel's bit for bit.
template <typename T>
absl::Status ResizeBilinearGradKernel(KernelContext& ctx) {
  const Tensor& grads = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const ResizeDims d = DimsOf(ctx, out.shape(), grads.shape());
  const std::vector<LinearTap> ys = Taps(d.out_h, d.scale_h, d.half_pixel_centers, d.in_h);
  const std::vector<LinearTap> xs = Taps(d.out_w, d.scale_w, d.half_pixel_centers, d.in_w);
  const float* g = grads.data<float>();
  T* o = out.mutable_data<T>();
  const int64_t c = d.channels, image = d.in_h * d.in_w * c;
  ctx.pool().ParallelFor(d.batch, 1, [&](int64_t begin, int64_t end) {
    std::vector<Acc<T>> acc(image);
    for (int64_t b = begin; b < end; ++b) {
      std::fill(acc.begin(), acc.end(), Acc<T>{});
      for (int64_t i = 0; i < d.out_h; ++i) {
        const LinearTap& ty = ys[i];
        const float inv_y = 1.0f - ty.lerp;
        for (int64_t j = 0; j < d.out_w; ++j) {
          const LinearTap& tx = xs[j];
          const float inv_x = 1.0f - tx.lerp;
          const float* src = g + ((b * d.out_h + i) * d.out_w + j) * c;
          Acc<T>* tl = acc.data() + (ty.lower * d.in_w + tx.lower) * c;
          Acc<T>* tr = acc.data() + (ty.lower * d.in_w + tx.upper) * c;
          Acc<T>* bl = acc.data() + (ty.upper * d.in_w + tx.lower) * c;
          Acc<T>* br = acc.data() + (ty.upper * d.in_w + tx.upper) * c;
          for (int64_t k = 0; k < c; ++k) {
            tl[k] += static_cast<Acc<T>>(src[k] * inv_y * inv_x);
            tr[k] += static_cast<Acc<T>>(src[k] * inv_y * tx.lerp);
            bl[k] += static_cast<Acc<T>>(src[k] * ty.lerp * inv_x);
            br[k] += static_cast<Acc<T>>(src[k] * ty.lerp * tx.lerp);
          }
        }
      }
      for (int64_t e = 0; e < image; ++e) o[b * image + e] = static_cast<T>(acc[e]);
    }
  });
  return absl::OkStatus();
}

template <typename T>
absl::Status ResizeNearestNeighborKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const ResizeDims d = DimsOf(ctx, x.shape(), out.shape());
  const std::vector<int64_t> ys = Nearest(d.out_h, d.scale_h, d, d.in_h);
  const std::vector<int64_t> xs = Nearest(d.out_w, d.scale_w, d, d.in_w);
  const T* in = x.data<T>();
  T* o = out.mutable_data<T>();
  const int64_t c = d.channels;
  ctx.pool().ParallelFor(d.batch * d.out_h, 1, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t b = row / d.out_h;
      const T* src = in + (b * d.in_h + ys[row % d.out_h]) * d.in_w * c;
      T* dst = o + row * d.out_w * c;
      for (int64_t j = 0; j < d.out_w; ++j)
        std::copy(src + xs[j] * c, src + xs[j] * c + c, dst + j * c);
    }
  });
  return absl::OkStatus();
}

// grads [batch, h, w, channels] added into an image of `size` at the pixels ResizeNearestNeighbor
// from that image would copy: the resize maps the image (in) to grads (out).
template <typename T>
absl::Status ResizeNearestNeighborGradKernel(KernelContext& ctx) {
  const Tensor& grads = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const ResizeDims d = DimsOf(ctx, out.shape(), grads.shape());
  const std::vector<int64_t> ys = Nearest(d.out_h, d.scale_h, d, d.in_h);
  const std::vector<int64_t> xs = Nearest(d.out_w, d.scale_w, d, d.in_w);
  const T* g = grads.data<T>();
  T* o = out.mutable_data<T>();
  const int64_t c = d.channels, image = d.in_h * d.in_w * c;
  ctx.pool().ParallelFor(d.batch, 1, [&](int64_t begin, int64_t end) {
    std::vector<Acc<T>> acc(image);
    for (int64_t b = begin; b < end; ++b) {
      std::fill(acc.begin(), acc.end(), Acc<T>{});
      for (int64_t i = 0; i < d.out_h; ++i) {
        for (int64_t j = 0; j < d.out_w; ++j) {
          const T* src = g + ((b * d.out_h + i) * d.out_w + j) * c;
          Acc<T>* dst = acc.data() + (ys[i] * d.in_w + xs[j]) * c;
          for (int64_t k = 0; k < c; ++k) dst[k] += static_cast<Acc<T>>(src[k]);
        }
      }
      for (int64_t e = 0; e < image; ++e) o[b * image + e] = static_cast<T>(acc[e]);
    }
  });
  return absl::OkStatus();
}

// Kernel<T>::Run as the CPU kernel of `op` for each of the types Ts.
template <template <typename> class Kernel, typename... Ts>
void RegisterResize(const char* op) {
  (RegisterKernel(op, DeviceType::kCpu, {DTypeOf<Ts>()}, KernelDef{&Kernel<Ts>::Run}), ...);
}

template <typename T>
struct Bilinear {
  static absl::Status Run(KernelContext& ctx) { return ResizeBilinearKernel<T>(ctx); }
};
template <typename T>
struct BilinearGrad {
  static absl::Status Run(KernelContext& ctx) { return ResizeBilinearGradKernel<T>(ctx); }
};
template <typename T>
struct NearestNeighbor {
  static absl::Status Run(KernelContext& ctx) { return ResizeNearestNeighborKernel<T>(ctx); }
};
template <typename T>
struct NearestNeighborGrad {
  static absl::Status Run(KernelContext& ctx) { return ResizeNearestNeighborGradKernel<T>(ctx); }
};

const bool kRegistered = [] {
  RegisterResize<Bilinear, float, double, float16, bfloat16, int32_t, int64_t>("ResizeBilinear");
  RegisterResize<NearestNeighbor, float, double, float16, bfloat16, int32_t, int64_t>(
      "ResizeNearestNeighbor");
  RegisterResize<BilinearGrad, float, double, float16, bfloat16>("ResizeBilinearGrad");
  RegisterResize<NearestNeighborGrad, float, double, float16, bfloat16, int32_t>(
      "ResizeNearestNeighborGrad");
  return true;
}();

}  // namespace
}  // namespace duet
