#include "kernels/common/pool_geometry.h"

#include "ops/nn/nn_attrs.h"

namespace duet {

PoolGeometry MakePoolGeometry(const KernelContext& ctx, const Shape& in, const Shape& out,
                              const std::vector<int64_t>* explicit_pads) {
  const auto& ksize = ctx.attr(PoolAttrs::kKsize);
  const auto& strides = ctx.attr(PoolAttrs::kStrides);
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

const std::vector<int64_t>* MaxPoolExplicitPads(const KernelContext& ctx) {
  if (ctx.attr(PoolAttrs::kPadding) != "EXPLICIT") return nullptr;
  return &ctx.attr(MaxPoolAttrs::kExplicitPaddings);
}

}  // namespace duet
