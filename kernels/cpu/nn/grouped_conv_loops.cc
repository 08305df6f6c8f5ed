#include "kernels/cpu/nn/grouped_conv_loops.h"

#include <algorithm>
#include <cstdint>

namespace duet {
namespace {

// Calls fn(input_offset, filter_offset, output_offset) for every product term of the convolution:
// input[input_offset] * filter[filter_offset] contributes to output[output_offset]. Taps that fall
// into the padding are skipped.
template <typename Fn>
void ForEachTerm(const ConvGeometry& g, Fn&& fn) {
  const int64_t in_per_group = g.in_c / g.groups;
  const int64_t out_per_group = g.out_c / g.groups;
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t oy = 0; oy < g.out[0]; ++oy) {
      for (int64_t ox = 0; ox < g.out[1]; ++ox) {
        const int64_t out_pixel = ((n * g.out[0] + oy) * g.out[1] + ox) * g.out_c;
        for (int64_t ky = 0; ky < g.window[0]; ++ky) {
          const int64_t iy = oy * g.stride[0] - g.pad[0].before + ky * g.dilation[0];
          if (iy < 0 || iy >= g.in[0]) continue;
          for (int64_t kx = 0; kx < g.window[1]; ++kx) {
            const int64_t ix = ox * g.stride[1] - g.pad[1].before + kx * g.dilation[1];
            if (ix < 0 || ix >= g.in[1]) continue;
            const int64_t in_pixel = ((n * g.in[0] + iy) * g.in[1] + ix) * g.in_c;
            const int64_t tap = (ky * g.window[1] + kx) * in_per_group * g.out_c;
            for (int64_t k = 0; k < g.out_c; ++k) {
              const int64_t first_in = (k / out_per_group) * in_per_group;
              for (int64_t i = 0; i < in_per_group; ++i) {
                fn(in_pixel + first_in + i, tap + i * g.out_c + k, out_pixel + k);
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace

void GroupedConvForward(const ConvGeometry& g, const double* input, const double* filter,
                        double* output) {
  std::fill_n(output, g.batch * g.out[0] * g.out[1] * g.out_c, 0.0);
  ForEachTerm(g, [&](int64_t x, int64_t f, int64_t y) { output[y] += input[x] * filter[f]; });
}

void GroupedConvBackpropInput(const ConvGeometry& g, const double* filter, const double* d_output,
                              double* d_input) {
  std::fill_n(d_input, g.batch * g.in[0] * g.in[1] * g.in_c, 0.0);
  ForEachTerm(g, [&](int64_t x, int64_t f, int64_t y) { d_input[x] += d_output[y] * filter[f]; });
}

void GroupedConvBackpropFilter(const ConvGeometry& g, const double* input, const double* d_output,
                               double* d_filter) {
  std::fill_n(d_filter, g.window[0] * g.window[1] * (g.in_c / g.groups) * g.out_c, 0.0);
  ForEachTerm(g, [&](int64_t x, int64_t f, int64_t y) { d_filter[f] += d_output[y] * input[x]; });
}

}  // namespace duet
