// float64 grouped convolutions (DepthwiseConv2dNative and its backprops; oneDNN 2.6 has no f64) as
// direct loops over a ConvGeometry with g.groups >= 1: NHWC activations, the filter
// [k_h, k_w, in_c / groups, out_c] (Note [Grouped convolution weights] in conv_dnnl.cc). Written
// for clarity: they serve float64, which the gradient checks use, not speed.
#pragma once

#include "kernels/common/conv_geometry.h"

namespace duet {

// output [batch, out_h, out_w, out_c] = the convolution of `input` [batch, in_h, in_w, in_c] with
// `filter`.
void GroupedConvForward(const ConvGeometry& g, const double* input, const double* filter,
                        double* output);

// d_input [batch, in_h, in_w, in_c] (overwritten) from `filter` and d_output.
void GroupedConvBackpropInput(const ConvGeometry& g, const double* filter, const double* d_output,
                              double* d_input);

// d_filter [k_h, k_w, in_c / groups, out_c] (overwritten) from `input` and d_output.
void GroupedConvBackpropFilter(const ConvGeometry& g, const double* input, const double* d_output,
                               double* d_filter);

}  // namespace duet
