// Printing tensors: `std::cout << t` shows values, shape and dtype, like tf.Tensor.
#pragma once

#include <ostream>
#include <string>

#include "core/tensor.h"

namespace duet {

struct TensorFormatOptions {
  // Tensors with more elements than this are elided: each dimension shows its first and last
  // `edge_items` entries around "...", as NumPy does.
  int64_t threshold = 1000;
  int64_t edge_items = 3;
  // Rows longer than this many characters wrap, as in NumPy.
  int line_width = 75;
};

// "Tensor(\n[[1. 2.]\n [3. 4.]], shape=(2, 2), dtype=float32)": the values as NumPy's str() of
// the array prints them (bfloat16 as TensorFlow prints it, "%g" per element), like tf.Tensor.
// A symbolic tensor prints "Tensor(shape=..., dtype=...)", an undefined one
// "Tensor(<undefined>)"; a tensor off the CPU is copied back and its device added at the end
// ("..., dtype=float32, device=cuda:0)").
std::string FormatTensor(const Tensor& t, const TensorFormatOptions& options = {});
// Writes FormatTensor(t) with default options.
std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace duet
