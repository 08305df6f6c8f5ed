// The geometry of an NHWC or NDHWC pooling, shared by the forward pooling kernels and their
// gradients.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/common/window_geometry.h"
#include "kernels/kernel_registry.h"

namespace duet {

// Sizes of one pooling; the arrays are per spatial dim in the tensor's order: [height, width] for
// rank 2 (MaxPool, AvgPool), [depth, height, width] for rank 3 (MaxPool3D, AvgPool3D).
struct PoolGeometry {
  int rank = 2;
  int64_t batch = 0, channels = 0;
  int64_t in[3] = {}, window[3] = {}, out[3] = {}, stride[3] = {};
  WindowPadding pad[3];

  // This pooling as a rank-3 one (a rank-2 pooling gains a leading depth of 1), so that loops over
  // the spatial dims are written once for both ranks.
  PoolGeometry As3D() const;

  // The window of output cell `o` (per spatial dim) clipped to the input: [begin[d], end[d]).
  struct Window {
    int64_t begin[3], end[3];
    // The number of input cells in the window.
    int64_t Cells() const;
  };
  Window At(const int64_t* o) const;

  // For a rank-3 geometry (As3D): calls fn(out_cell, window) for each output cell of one image in
  // row-major order, out_cell being its index among the image's output cells.
  template <typename Fn>
  void ForEachWindow(Fn&& fn) const {
    int64_t o[3], out_cell = 0;
    for (o[0] = 0; o[0] < out[0]; ++o[0]) {
      for (o[1] = 0; o[1] < out[1]; ++o[1]) {
        for (o[2] = 0; o[2] < out[2]; ++o[2]) fn(out_cell++, At(o));
      }
    }
  }

  // For a rank-3 geometry: calls fn(in_cell) for each input cell of window `w` in row-major order,
  // in_cell being its index among the image's input cells.
  template <typename Fn>
  void ForEachCell(const Window& w, Fn&& fn) const {
    for (int64_t z = w.begin[0]; z < w.end[0]; ++z) {
      for (int64_t y = w.begin[1]; y < w.end[1]; ++y) {
        for (int64_t x = w.begin[2]; x < w.end[2]; ++x) fn((z * in[1] + y) * in[2] + x);
      }
    }
  }

  // The input and output cells of one image (products of in and of out over the spatial dims).
  int64_t InCells() const;
  int64_t OutCells() const;
};

// The geometry of a pooling from its input and output shapes (NHWC or NDHWC, checked by the shape
// functions) and the call's PoolAttrs (ops/nn/nn_attrs.h); `explicit_pads` is null for SAME/VALID
// padding.
PoolGeometry MakePoolGeometry(const KernelContext& ctx, const Shape& in, const Shape& out,
                              const std::vector<int64_t>* explicit_pads);

// The explicit paddings of a MaxPool or MaxPoolGrad call (MaxPoolAttrs), or null when its padding
// is SAME or VALID.
const std::vector<int64_t>* MaxPoolExplicitPads(const KernelContext& ctx);

}  // namespace duet
