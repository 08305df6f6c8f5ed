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
};

// "Tensor(\n[[1. 2.]\n [3. 4.]], shape=(2, 2), dtype=float32)". A symbolic tensor prints its
// shape and dtype without values; a tensor on a GPU is copied to the host first.
std::string FormatTensor(const Tensor& t, const TensorFormatOptions& options = {});
std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace duet
