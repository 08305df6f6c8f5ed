// Direct convolutions written as gathers, one result element per call: the CUDA kernels' fallback
// for the convolutions cuDNN has no algorithm for (float64 backprops and 3-D convolutions, whose
// NHWC layouts cuDNN's double precision does not support; kernels/cuda/nn/conv_kernels.cc). Each
// element sums its own terms, so the kernel is one thread per element: no atomics, deterministic.
// The same functions run on the host, where tests/kernels/direct_conv_test.cc checks them against
// the CPU's convolutions. Compiles under nvcc as C++17.
//
// Layouts as ConvGeometry's: NDHWC activations (a 2-D convolution has depth 1), the filter
// [window_d, window_h, window_w, in_c / groups, out_c] with output channel k in group
// k / (out_c / groups) (Note [Grouped convolution weights] in kernels/cpu/nn/conv_dnnl.cc).
#pragma once

#include <cstdint>

#include "kernels/common/host_device.h"

namespace duet {

// A convolution's sizes as plain numbers (device code takes it by value), always of rank 3.
struct DirectConvShape {
  int64_t batch = 0, in_c = 0, out_c = 0, groups = 1;
  int64_t in[3] = {1, 1, 1}, window[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1};
  int64_t pad_before[3] = {0, 0, 0};  // the padding after is implied by the sizes

  DUET_HOST_DEVICE int64_t in_per_group() const { return in_c / groups; }
  DUET_HOST_DEVICE int64_t out_per_group() const { return out_c / groups; }
  DUET_HOST_DEVICE int64_t input_elements() const { return batch * in[0] * in[1] * in[2] * in_c; }
  DUET_HOST_DEVICE int64_t output_elements() const {
    return batch * out[0] * out[1] * out[2] * out_c;
  }
  DUET_HOST_DEVICE int64_t filter_elements() const {
    return window[0] * window[1] * window[2] * in_per_group() * out_c;
  }
  // Offset of pixel (n, p[0], p[1], p[2]) of an activation of spatial `size` and `channels`.
  DUET_HOST_DEVICE static int64_t Pixel(int64_t n, const int64_t* p, const int64_t* size,
                                        int64_t channels) {
    return (((n * size[0] + p[0]) * size[1] + p[1]) * size[2] + p[2]) * channels;
  }
  // Offset of filter tap (t[0], t[1], t[2]) before its [in / groups, out_c] block.
  DUET_HOST_DEVICE int64_t Tap(const int64_t* t) const {
    return ((t[0] * window[1] + t[1]) * window[2] + t[2]) * in_per_group() * out_c;
  }
};

// Splits a row-major index over [lead, size[0], size[1], size[2], last] (last innermost).
DUET_HOST_DEVICE void SplitIndex(int64_t index, const int64_t* size, int64_t last, int64_t* lead,
                                 int64_t* p, int64_t* inner) {
  *inner = index % last;
  index /= last;
  for (int d = 2; d >= 0; --d) {
    p[d] = index % size[d];
    index /= size[d];
  }
  *lead = index;
}

// Output element `index` (of [batch, out..., out_c]) of the convolution of `input` with `filter`.
template <typename T>
DUET_HOST_DEVICE T DirectConvOutputAt(const DirectConvShape& s, const T* input, const T* filter,
                                      int64_t index) {
  int64_t n, o[3], k;
  SplitIndex(index, s.out, s.out_c, &n, o, &k);
  const int64_t first_in = (k / s.out_per_group()) * s.in_per_group();
  T sum = 0;
  int64_t t[3], p[3];
  for (t[0] = 0; t[0] < s.window[0]; ++t[0]) {
    p[0] = o[0] * s.stride[0] - s.pad_before[0] + t[0] * s.dilation[0];
    if (p[0] < 0 || p[0] >= s.in[0]) continue;
    for (t[1] = 0; t[1] < s.window[1]; ++t[1]) {
      p[1] = o[1] * s.stride[1] - s.pad_before[1] + t[1] * s.dilation[1];
      if (p[1] < 0 || p[1] >= s.in[1]) continue;
      for (t[2] = 0; t[2] < s.window[2]; ++t[2]) {
        p[2] = o[2] * s.stride[2] - s.pad_before[2] + t[2] * s.dilation[2];
        if (p[2] < 0 || p[2] >= s.in[2]) continue;
        const T* x = input + DirectConvShape::Pixel(n, p, s.in, s.in_c) + first_in;
        const T* w = filter + s.Tap(t) + k;
        for (int64_t i = 0; i < s.in_per_group(); ++i) sum += x[i] * w[i * s.out_c];
      }
    }
  }
  return sum;
}

// Where input position `p` of a dim meets output position `*o` through tap `t`: the tap's input
// position p = o * stride - pad + t * dilation, solved for o (false when no whole o in range).
DUET_HOST_DEVICE bool OutputThroughTap(int64_t p, int64_t t, int64_t stride, int64_t dilation,
                                       int64_t pad, int64_t out, int64_t* o) {
  const int64_t numerator = p + pad - t * dilation;
  if (numerator < 0 || numerator % stride != 0) return false;
  *o = numerator / stride;
  return *o < out;
}

// Element `index` (of [batch, in..., in_c]) of the input's gradient, given `filter` and the
// output's gradient `d_output`.
template <typename T>
DUET_HOST_DEVICE T DirectConvInputGradAt(const DirectConvShape& s, const T* filter,
                                         const T* d_output, int64_t index) {
  int64_t n, p[3], c;
  SplitIndex(index, s.in, s.in_c, &n, p, &c);
  const int64_t group = c / s.in_per_group(), i = c % s.in_per_group();
  const int64_t first_out = group * s.out_per_group();
  T sum = 0;
  int64_t t[3], o[3];
  for (t[0] = 0; t[0] < s.window[0]; ++t[0]) {
    if (!OutputThroughTap(p[0], t[0], s.stride[0], s.dilation[0], s.pad_before[0], s.out[0],
                          &o[0])) {
      continue;
    }
    for (t[1] = 0; t[1] < s.window[1]; ++t[1]) {
      if (!OutputThroughTap(p[1], t[1], s.stride[1], s.dilation[1], s.pad_before[1], s.out[1],
                            &o[1])) {
        continue;
      }
      for (t[2] = 0; t[2] < s.window[2]; ++t[2]) {
        if (!OutputThroughTap(p[2], t[2], s.stride[2], s.dilation[2], s.pad_before[2], s.out[2],
                              &o[2])) {
          continue;
        }
        const T* dy = d_output + DirectConvShape::Pixel(n, o, s.out, s.out_c) + first_out;
        const T* w = filter + s.Tap(t) + i * s.out_c + first_out;
        for (int64_t k = 0; k < s.out_per_group(); ++k) sum += dy[k] * w[k];
      }
    }
  }
  return sum;
}

// Element `index` (of the filter's shape) of the filter's gradient, given `input` and the
// output's gradient `d_output`.
template <typename T>
DUET_HOST_DEVICE T DirectConvFilterGradAt(const DirectConvShape& s, const T* input,
                                          const T* d_output, int64_t index) {
  const int64_t k = index % s.out_c;
  index /= s.out_c;
  const int64_t i = index % s.in_per_group();
  index /= s.in_per_group();
  int64_t t[3];
  for (int d = 2; d >= 0; --d) {
    t[d] = index % s.window[d];
    index /= s.window[d];
  }
  const int64_t channel = (k / s.out_per_group()) * s.in_per_group() + i;
  T sum = 0;
  int64_t o[3], p[3];
  for (int64_t n = 0; n < s.batch; ++n) {
    for (o[0] = 0; o[0] < s.out[0]; ++o[0]) {
      p[0] = o[0] * s.stride[0] - s.pad_before[0] + t[0] * s.dilation[0];
      if (p[0] < 0 || p[0] >= s.in[0]) continue;
      for (o[1] = 0; o[1] < s.out[1]; ++o[1]) {
        p[1] = o[1] * s.stride[1] - s.pad_before[1] + t[1] * s.dilation[1];
        if (p[1] < 0 || p[1] >= s.in[1]) continue;
        for (o[2] = 0; o[2] < s.out[2]; ++o[2]) {
          p[2] = o[2] * s.stride[2] - s.pad_before[2] + t[2] * s.dilation[2];
          if (p[2] < 0 || p[2] >= s.in[2]) continue;
          sum += input[DirectConvShape::Pixel(n, p, s.in, s.in_c) + channel] *
                 d_output[DirectConvShape::Pixel(n, o, s.out, s.out_c) + k];
        }
      }
    }
  }
  return sum;
}

}  // namespace duet
