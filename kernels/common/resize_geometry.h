// TensorFlow's image-resizing coordinate rules (tensorflow/core/util/image_resizer_state.h and
// the ResizeBilinear / ResizeNearestNeighbor kernels), for the CPU and CUDA kernels alike.
// Everything is computed in float exactly as TensorFlow does, so that the same output pixel reads
// the same input pixels with the same weights. Compiles under nvcc as C++17.
#pragma once

#include <math.h>

#include <cstdint>

#include "kernels/common/host_device.h"

namespace duet {

// Input pixels per output pixel along one axis: with align_corners the corner pixels' centers
// line up ((in - 1) / (out - 1)), otherwise the edges do (in / out).
DUET_HOST_DEVICE float ResizeScale(int64_t in_size, int64_t out_size, bool align_corners) {
  return (align_corners && out_size > 1)
             ? static_cast<float>(in_size - 1) / static_cast<float>(out_size - 1)
             : static_cast<float>(in_size) / static_cast<float>(out_size);
}

// One output coordinate's two input neighbours along an axis and the weight of the upper one.
struct LinearTap {
  int64_t lower, upper;
  float lerp;
};

// Bilinear: output index i sits at input coordinate (i + 0.5) * scale - 0.5 with
// half_pixel_centers, else i * scale; the neighbours are clamped into [0, in_size).
DUET_HOST_DEVICE LinearTap BilinearTap(int64_t i, float scale, bool half_pixel_centers,
                                       int64_t in_size) {
  const float in = half_pixel_centers ? (static_cast<float>(i) + 0.5f) * scale - 0.5f
                                      : static_cast<float>(i) * scale;
  const float in_f = floorf(in);
  LinearTap tap;
  tap.lower = static_cast<int64_t>(in_f) > 0 ? static_cast<int64_t>(in_f) : 0;
  const int64_t upper = static_cast<int64_t>(ceilf(in));
  tap.upper = upper < in_size - 1 ? upper : in_size - 1;
  tap.lerp = in - in_f;
  return tap;
}

// Nearest neighbour: output index i takes input floor((i + 0.5) * scale) with half_pixel_centers
// (no -0.5: TensorFlow's HalfPixelScalerForNN), else floor(i * scale), rounded instead of floored
// with align_corners (roundf: halves away from zero); clamped into [0, in_size).
DUET_HOST_DEVICE int64_t NearestIndex(int64_t i, float scale, bool half_pixel_centers,
                                      bool align_corners, int64_t in_size) {
  const float in =
      half_pixel_centers ? (static_cast<float>(i) + 0.5f) * scale : static_cast<float>(i) * scale;
  int64_t index = static_cast<int64_t>(align_corners ? roundf(in) : floorf(in));
  if (index > in_size - 1) index = in_size - 1;
  if (half_pixel_centers && index < 0) index = 0;
  return index;
}

// The two output values of bilinear interpolation, in TensorFlow's order of operations.
DUET_HOST_DEVICE float BilinearLerp(float top_left, float top_right, float bottom_left,
                                    float bottom_right, float x_lerp, float y_lerp) {
  const float top = top_left + (top_right - top_left) * x_lerp;
  const float bottom = bottom_left + (bottom_right - bottom_left) * x_lerp;
  return top + (bottom - top) * y_lerp;
}

}  // namespace duet
