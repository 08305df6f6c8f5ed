// float64 convolutions as GEMMs (oneDNN 2.6 has no f64): gathering a convolution's input windows
// into an im2col matrix, and its adjoint, for the Eigen paths of the CPU convolution kernels.
#pragma once

#include <Eigen/Dense>

#include "kernels/common/conv_geometry.h"

namespace duet {

using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Gathers one NHWC (NDHWC) image's input windows into the rows of `col` [out cells, window cells *
// in_c] (padding as zeros), so that Conv2D (Conv3D) is one GEMM with the HWIO (DHWIO) filter viewed
// as [window cells * in_c, out_c].
void Im2Col(const double* image, const ConvGeometry& g, double* col);

// The adjoint of Im2Col: overwrites `image` with the sum of the `col` entries read from each pixel.
void Col2Im(const double* col, const ConvGeometry& g, double* image);

}  // namespace duet
