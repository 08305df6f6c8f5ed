#include "kernels/cpu/nn/im2col.h"

#include <algorithm>
#include <cstdint>

namespace duet {
namespace {

// Calls fn(position, tap, pixel) for every (output position, filter tap) pair whose input pixel
// is inside the image: row `position` (oh * out_w + ow) and column block `tap` (kh * k_w + kw) of
// the im2col matrix [out_h * out_w, k_h * k_w * in_c] read input pixel `pixel` (ih * in_w + iw).
// Im2Col and Col2Im share it so that the adjoint visits exactly the entries the gather wrote.
template <typename Fn>
void ForEachPatchPixel(const ConvGeometry& g, Fn&& fn) {
  for (int64_t oh = 0; oh < g.out[0]; ++oh) {
    for (int64_t ow = 0; ow < g.out[1]; ++ow) {
      const int64_t position = oh * g.out[1] + ow;
      for (int64_t kh = 0; kh < g.window[0]; ++kh) {
        const int64_t ih = oh * g.stride[0] - g.pad[0].before + kh * g.dilation[0];
        if (ih < 0 || ih >= g.in[0]) continue;
        for (int64_t kw = 0; kw < g.window[1]; ++kw) {
          const int64_t iw = ow * g.stride[1] - g.pad[1].before + kw * g.dilation[1];
          if (iw < 0 || iw >= g.in[1]) continue;
          fn(position, kh * g.window[1] + kw, ih * g.in[1] + iw);
        }
      }
    }
  }
}

}  // namespace

void Im2Col(const double* image, const ConvGeometry& g, double* col) {
  const int64_t c = g.in_c, patch = g.window[0] * g.window[1] * c;
  std::fill(col, col + g.out[0] * g.out[1] * patch, 0.0);
  ForEachPatchPixel(g, [&](int64_t position, int64_t tap, int64_t pixel) {
    std::copy_n(image + pixel * c, c, col + position * patch + tap * c);
  });
}

void Col2Im(const double* col, const ConvGeometry& g, double* image) {
  const int64_t c = g.in_c, patch = g.window[0] * g.window[1] * c;
  std::fill(image, image + g.in[0] * g.in[1] * c, 0.0);
  ForEachPatchPixel(g, [&](int64_t position, int64_t tap, int64_t pixel) {
    const double* from = col + position * patch + tap * c;
    double* to = image + pixel * c;
    for (int64_t k = 0; k < c; ++k) to[k] += from[k];
  });
}

}  // namespace duet
