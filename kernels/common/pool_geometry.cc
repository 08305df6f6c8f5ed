#include "kernels/common/pool_geometry.h"

#include "ops/nn/nn_attrs.h"

namespace duet {

PoolGeometry PoolGeometry::As3D() const { return WindowAs3D(*this); }

int64_t PoolGeometry::Window::Cells() const {
  return (end[0] - begin[0]) * (end[1] - begin[1]) * (end[2] - begin[2]);
}

int64_t PoolGeometry::InCells() const { return SpatialProduct(in, rank); }

int64_t PoolGeometry::OutCells() const { return SpatialProduct(out, rank); }

PoolGeometry::Window PoolGeometry::At(const int64_t* o) const {
  Window w{{0, 0, 0}, {1, 1, 1}};
  for (int d = 0; d < rank; ++d) {
    const int64_t first = o[d] * stride[d] - pad[d].before;
    w.begin[d] = std::max<int64_t>(first, 0);
    w.end[d] = std::min(first + window[d], in[d]);
  }
  return w;
}

PoolGeometry MakePoolGeometry(const KernelContext& ctx, const Shape& in, const Shape& out,
                              const std::vector<int64_t>* explicit_pads) {
  const auto& ksize = ctx.attr(PoolAttrs::kKsize);
  const auto& strides = ctx.attr(PoolAttrs::kStrides);
  PoolGeometry g;
  g.rank = in.rank() - 2;
  g.batch = in[0];
  g.channels = in[g.rank + 1];
  for (int d = 0; d < g.rank; ++d) {
    g.in[d] = in[1 + d];
    g.window[d] = ksize[1 + d];
    g.out[d] = out[1 + d];
    g.stride[d] = strides[1 + d];
    // Only the 2-D MaxPool ops have explicit paddings.
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
