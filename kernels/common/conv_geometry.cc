#include "kernels/common/conv_geometry.h"

#include "ops/nn/nn_attrs.h"

namespace duet {

ConvGeometry MakeConvGeometry(const KernelContext& ctx, const Shape& in, const Shape& filter,
                              const Shape& out) {
  const auto& strides = ctx.attr(ConvAttrs::kStrides);
  const auto& dilations = ctx.attr(ConvAttrs::kDilations);
  const auto& explicit_pads = ctx.attr(ConvAttrs::kExplicitPaddings);
  const bool is_explicit = ctx.attr(ConvAttrs::kPadding) == "EXPLICIT";
  ConvGeometry g;
  g.batch = in[0];
  g.in_c = in[3];
  g.out_c = filter[3];
  for (int d = 0; d < 2; ++d) {
    g.in[d] = in[1 + d];
    g.window[d] = filter[d];
    g.out[d] = out[1 + d];
    g.stride[d] = strides[1 + d];
    g.dilation[d] = dilations[1 + d];
    g.pad[d] = is_explicit
                   ? WindowPadding{explicit_pads[2 + 2 * d], explicit_pads[3 + 2 * d]}
                   : SameOrValidPadding(g.in[d], g.out[d], g.window[d], g.stride[d], g.dilation[d]);
  }
  return g;
}

}  // namespace duet
