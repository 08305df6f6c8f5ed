#include "kernels/cpu/nn/pool_geometry.h"

namespace duet {

PoolGeometry MakePoolGeometry(const KernelContext& ctx, const Shape& in, const Shape& out,
                              int ksize_attr, int strides_attr,
                              const std::vector<int64_t>* explicit_pads) {
  const auto& ksize = ctx.attr<std::vector<int64_t>>(ksize_attr);
  const auto& strides = ctx.attr<std::vector<int64_t>>(strides_attr);
  PoolGeometry g;
  g.batch = in[0];
  g.channels = in[3];
  for (int d = 0; d < 2; ++d) {
    g.in[d] = in[1 + d];
    g.window[d] = ksize[1 + d];
    g.out[d] = out[1 + d];
    g.stride[d] = strides[1 + d];
    g.pad[d] = explicit_pads != nullptr
                   ? WindowPadding{(*explicit_pads)[2 + 2 * d], (*explicit_pads)[3 + 2 * d]}
                   : SameOrValidPadding(g.in[d], g.out[d], g.window[d], g.stride[d]);
  }
  return g;
}

}  // namespace duet
