#include "kernels/cpu/nn/pool_dnnl.h"

#include "kernels/cpu/common/dnnl_engine.h"

namespace duet {
namespace {

// The dims of an activation [batch, channels, spatial...] in oneDNN's order.
dnnl::memory::dims ActivationDims(const PoolGeometry& g, const int64_t* spatial) {
  dnnl::memory::dims dims = {g.batch, g.channels};
  dims.insert(dims.end(), spatial, spatial + g.rank);
  return dims;
}

}  // namespace

PoolDescs::PoolDescs(const PoolGeometry& g, PoolKind kind, dnnl::memory::data_type type)
    : strides(g.stride, g.stride + g.rank),
      kernel(g.window, g.window + g.rank),
      algorithm(kind == PoolKind::kMax ? dnnl::algorithm::pooling_max
                                       : dnnl::algorithm::pooling_avg_exclude_padding) {
  const auto tag = g.rank == 3 ? dnnl::memory::format_tag::ndhwc : dnnl::memory::format_tag::nhwc;
  src = dnnl::memory::desc(ActivationDims(g, g.in), type, tag);
  dst = dnnl::memory::desc(ActivationDims(g, g.out), type, tag);
  for (int d = 0; d < g.rank; ++d) {
    pad_before.push_back(g.pad[d].before);
    pad_after.push_back(g.pad[d].after);
  }
}

dnnl::pooling_forward::primitive_desc PoolDescs::Forward(dnnl::prop_kind prop) const {
  return dnnl::pooling_forward::primitive_desc(
      dnnl::pooling_forward::desc(prop, algorithm, src, dst, strides, kernel, pad_before,
                                  pad_after),
      DnnlEngine());
}

DnnlKey PoolDnnlKey(DType dtype, PoolKind kind, const PoolGeometry& g) {
  DnnlKey key = {static_cast<int64_t>(dtype), static_cast<int64_t>(kind), g.rank, g.batch,
                 g.channels};
  for (int d = 0; d < g.rank; ++d) {
    for (int64_t v :
         {g.in[d], g.out[d], g.window[d], g.stride[d], g.pad[d].before, g.pad[d].after}) {
      key.push_back(v);
    }
  }
  return key;
}

}  // namespace duet
