// Padding of sliding-window ops (convolution, pooling), before and after each spatial dim, and the
// per-spatial-dim array helpers their geometries (conv_geometry.h, pool_geometry.h) share.
#pragma once

#include <cstdint>

namespace duet {

// Padding before and after one spatial dim.
struct WindowPadding {
  int64_t before = 0;
  int64_t after = 0;
};

// The padding that turns an input of size `in` into `out` windows of size `window` (dilated by
// `dilation`) at `stride`, following TensorFlow's SAME/VALID rule: total = max((out - 1) * stride +
// effective_window - in, 0), before = total / 2. `out` must come from the op's shape function,
// which applied SAME or VALID; VALID always gives zero padding.
WindowPadding SameOrValidPadding(int64_t in, int64_t out, int64_t window, int64_t stride,
                                 int64_t dilation = 1);

// The product of the first `rank` entries of a per-spatial-dim array.
int64_t SpatialProduct(const int64_t* values, int rank);

// Turns the rank-2 per-spatial-dim array `a` ([height, width, unused]) into its rank-3 form
// ([unit, height, width]): a 2-D window is a 3-D one of depth 1.
template <typename T>
void PrependUnitDim(T (&a)[3], T unit) {
  a[2] = a[1];
  a[1] = a[0];
  a[0] = unit;
}

// A window geometry (ConvGeometry, PoolGeometry: `rank` and per-spatial-dim arrays in, window,
// out, stride, pad and maybe dilation) as a rank-3 one: a rank-2 geometry gains a leading depth
// of 1, so that loops over the spatial dims are written once for both ranks.
template <typename Geometry>
Geometry WindowAs3D(Geometry g) {
  if (g.rank == 3) return g;
  g.rank = 3;
  PrependUnitDim(g.in, int64_t{1});
  PrependUnitDim(g.window, int64_t{1});
  PrependUnitDim(g.out, int64_t{1});
  PrependUnitDim(g.stride, int64_t{1});
  if constexpr (requires { g.dilation; }) PrependUnitDim(g.dilation, int64_t{1});
  PrependUnitDim(g.pad, WindowPadding{});
  return g;
}

}  // namespace duet
