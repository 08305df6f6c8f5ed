#include "kernels/common/conv_geometry.h"

namespace duet {
ConvGeometry ConvGeometry::As3D() const { return WindowAs3D(*this); }

int64_t ConvGeometry::InCells() const { return SpatialProduct(in, rank); }
int64_t ConvGeometry::WindowCells() const { return SpatialProduct(window, rank); }
int64_t ConvGeometry::OutCells() const { return SpatialProduct(out, rank); }

DirectConvShape ConvGeometry::AsDirect() const {
  const ConvGeometry g = As3D();
  DirectConvShape s;
  s.batch = g.batch;
  s.in_c = g.in_c;
  s.out_c = g.out_c;
  s.groups = g.groups;
  for (int d = 0; d < 3; ++d) {
    s.in[d] = g.in[d];
    s.window[d] = g.window[d];
    s.out[d] = g.out[d];
    s.stride[d] = g.stride[d];
    s.dilation[d] = g.dilation[d];
    s.pad_before[d] = g.pad[d].before;
  }
  return s;
}

ConvGeometry MakeConvGeometry(const KernelContext& ctx, ConvKind kind, const Shape& in,
                              const Shape& filter, const Shape& out) {
  return MakeConvGeometry(ctx, kind, ConvWindowKeysOf(kind), in, filter, out);
}

ConvGeometry MakeConvGeometry(const KernelContext& ctx, ConvKind kind, const ConvWindowKeys& keys,
                              const Shape& in, const Shape& filter, const Shape& out) {
  const auto& strides = ctx.attr(keys.strides);
  const auto& dilations = ctx.attr(keys.dilations);
  // Read only when padding is EXPLICIT, which the ops without the attr do not allow (only the 2-D
  // ones have it).
  const bool is_explicit = ctx.attr(keys.padding) == "EXPLICIT";
  const std::vector<int64_t>* explicit_pads =
      is_explicit ? &ctx.attr(*keys.explicit_paddings) : nullptr;
  ConvGeometry g;
  g.rank = ConvRank(kind);
  g.batch = in[0];
  g.in_c = in[g.rank + 1];
  if (kind == ConvKind::kDepthwise) {
    g.out_c = filter[2] * filter[3];
    g.groups = in[3];
  } else {
    g.out_c = filter[g.rank + 1];
    // Grouped Conv2D: Note [Grouped Conv2D] in ops/nn/conv_shape.cc.
    const int64_t filter_in = filter[g.rank];
    if (filter_in > 0) g.groups = g.in_c / filter_in;
  }
  for (int d = 0; d < g.rank; ++d) {
    g.in[d] = in[1 + d];
    g.window[d] = filter[d];
    g.out[d] = out[1 + d];
    g.stride[d] = strides[1 + d];
    g.dilation[d] = dilations[1 + d];
    g.pad[d] = is_explicit
                   ? WindowPadding{(*explicit_pads)[2 + 2 * d], (*explicit_pads)[3 + 2 * d]}
                   : SameOrValidPadding(g.in[d], g.out[d], g.window[d], g.stride[d], g.dilation[d]);
  }
  return g;
}

}  // namespace duet
