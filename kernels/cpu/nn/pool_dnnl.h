// The oneDNN side of the CPU pooling kernels (MaxPool, AvgPool, MaxPool3D, AvgPool3D and their
// gradients): memory descriptors and pooling parameters of a PoolGeometry
// (kernels/common/pool_geometry.h).
#pragma once

#include "core/dtype.h"
#include "kernels/common/pool_geometry.h"
#include "kernels/cpu/common/dnnl_plan.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace duet {

// Which pooling: max (padded cells never win) or average (padded cells left out).
enum class PoolKind { kMax, kAvg };

// oneDNN's descriptors of pooling `g`: NHWC (rank 2) or NDHWC (rank 3) source and destination,
// and the per-spatial-dim window parameters.
struct PoolDescs {
  dnnl::memory::desc src, dst;
  dnnl::memory::dims strides, kernel, pad_before, pad_after;
  // TensorFlow's average pooling divides by the number of cells inside the input.
  dnnl::algorithm algorithm;

  PoolDescs(const PoolGeometry& g, PoolKind kind, dnnl::memory::data_type type);

  // The forward pooling (forward_inference for MaxPool, forward_training as the backward's hint).
  dnnl::pooling_forward::primitive_desc Forward(dnnl::prop_kind prop) const;
};

// Everything a oneDNN pooling plan of `dtype` over `g` depends on.
DnnlKey PoolDnnlKey(DType dtype, PoolKind kind, const PoolGeometry& g);

}  // namespace duet
