#include "kernels/cpu/nn/im2col.h"

#include <algorithm>
#include <cstdint>

namespace duet {
namespace {

// Calls fn(position, tap, pixel) for every (output position, filter tap) pair whose input pixel
// is inside the image, over the rank-3 geometry `g` (ConvGeometry::As3D): row `position` ((od *
// out_h + oh) * out_w + ow) and column block `tap` ((kd * k_h + kh) * k_w + kw) of the im2col
// matrix [out cells, window cells * in_c] read input pixel `pixel` ((id * in_h + ih) * in_w + iw).
// Im2Col and Col2Im share it so that the adjoint visits exactly the entries the gather wrote.
template <typename Fn>
void ForEachPatchPixel(const ConvGeometry& g, Fn&& fn) {
  int64_t o[3], k[3], i[3];
  int64_t position = 0;
  for (o[0] = 0; o[0] < g.out[0]; ++o[0]) {
    for (o[1] = 0; o[1] < g.out[1]; ++o[1]) {
      for (o[2] = 0; o[2] < g.out[2]; ++o[2], ++position) {
        int64_t tap = 0;
        for (k[0] = 0; k[0] < g.window[0]; ++k[0]) {
          i[0] = o[0] * g.stride[0] - g.pad[0].before + k[0] * g.dilation[0];
          const bool inside_d = i[0] >= 0 && i[0] < g.in[0];
          for (k[1] = 0; k[1] < g.window[1]; ++k[1]) {
            i[1] = o[1] * g.stride[1] - g.pad[1].before + k[1] * g.dilation[1];
            const bool inside_h = inside_d && i[1] >= 0 && i[1] < g.in[1];
            for (k[2] = 0; k[2] < g.window[2]; ++k[2], ++tap) {
              i[2] = o[2] * g.stride[2] - g.pad[2].before + k[2] * g.dilation[2];
              if (!inside_h || i[2] < 0 || i[2] >= g.in[2]) continue;
              fn(position, tap, (i[0] * g.in[1] + i[1]) * g.in[2] + i[2]);
            }
          }
        }
      }
    }
  }
}

}  // namespace

void Im2Col(const double* image, const ConvGeometry& g, double* col) {
  const int64_t c = g.in_c, patch = g.WindowCells() * c;
  std::fill(col, col + g.OutCells() * patch, 0.0);
  ForEachPatchPixel(g.As3D(), [&](int64_t position, int64_t tap, int64_t pixel) {
    std::copy_n(image + pixel * c, c, col + position * patch + tap * c);
  });
}

void Col2Im(const double* col, const ConvGeometry& g, double* image) {
  const int64_t c = g.in_c, patch = g.WindowCells() * c;
  std::fill(image, image + g.InCells() * c, 0.0);
  ForEachPatchPixel(g.As3D(), [&](int64_t position, int64_t tap, int64_t pixel) {
    const double* from = col + position * patch + tap * c;
    double* to = image + pixel * c;
    for (int64_t k = 0; k < c; ++k) to[k] += from[k];
  });
}

}  // namespace duet
