// Fashion-MNIST (Zalando's 28x28 grey clothing images, 10 classes) from Debian's
// dataset-fashion-mnist package.
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"

namespace duet::data {

// Where Debian's dataset-fashion-mnist package installs the four IDX files.
inline constexpr char kFashionMnistDir[] = "/usr/share/datasets/fashion-mnist";

// The training split (60000 examples) and the test split (10000), each
// {images uint8 (N, 28, 28), labels int64 (N,)}:
//   auto [train, test] = data::fashion_mnist();
struct FashionMnist {
  std::vector<Tensor> train;
  std::vector<Tensor> test;
};

// Loads the dataset from `dir` (default: $DUET_FASHION_MNIST_DIR, else kFashionMnistDir). Throws
// Error naming the missing file and the package to install when the files are not there.
FashionMnist fashion_mnist(const std::string& dir = "");

}  // namespace duet::data
