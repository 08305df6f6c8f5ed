// The geometry of an NHWC pooling, shared by the forward pooling kernels and their gradients.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/common/window_geometry.h"
#include "kernels/kernel_registry.h"

namespace duet {

// Sizes of one pooling; the arrays are [height, width].
struct PoolGeometry {
  int64_t batch = 0, channels = 0;
  int64_t in[2] = {}, window[2] = {}, out[2] = {}, stride[2] = {};
  WindowPadding pad[2];

  // The window of output cell (oh, ow), clipped to the input: rows [h_begin, h_end), columns
  // [w_begin, w_end).
  struct Window {
    int64_t h_begin, h_end, w_begin, w_end;
  };
  Window At(int64_t oh, int64_t ow) const {
    const int64_t h0 = oh * stride[0] - pad[0].before;
    const int64_t w0 = ow * stride[1] - pad[1].before;
    return {std::max<int64_t>(h0, 0), std::min(h0 + window[0], in[0]), std::max<int64_t>(w0, 0),
            std::min(w0 + window[1], in[1])};
  }
};

// The geometry of a pooling from its input and output shapes (checked by the shape functions)
// and the call's PoolAttrs (ops/nn/nn_attrs.h); `explicit_pads` is null for SAME/VALID padding.
PoolGeometry MakePoolGeometry(const KernelContext& ctx, const Shape& in, const Shape& out,
                              const std::vector<int64_t>* explicit_pads);

// The explicit paddings of a MaxPool or MaxPoolGrad call (MaxPoolAttrs), or null when its padding
// is SAME or VALID.
const std::vector<int64_t>* MaxPoolExplicitPads(const KernelContext& ctx);

}  // namespace duet
