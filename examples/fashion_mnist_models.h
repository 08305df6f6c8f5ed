// The Fashion-MNIST example's two models (examples/fashion_mnist.cc), shared with the benchmarks
// that time their training steps (tools/bench/distributed_training_bench.cc).
#pragma once

#include "duet.h"

namespace duet::fashion_mnist {

// 784-256-128-10, ReLU: the images flattened.
struct Mlp : nn::Module {
  Mlp() : nn::Module("mlp") {}
  nn::Flatten flatten{this};
  nn::Dense hidden1{this, "hidden1", 256, Activation::kRelu};
  nn::Dense hidden2{this, "hidden2", 128, Activation::kRelu};
  nn::Dense logits{this, "logits", 10};
  Tensor operator()(const Tensor& images, bool /*training*/ = false) {
    return logits(hidden2(hidden1(flatten(images))));
  }
};

// conv-bn-relu twice, max-pool, dropout, dense.
struct Cnn : nn::Module {
  Cnn() : nn::Module("cnn") {}
  nn::Conv2D conv1{this, "conv1", 32, 3, {.padding = "same"}};
  nn::BatchNorm norm1{this, "norm1"};
  nn::Conv2D conv2{this, "conv2", 64, 3, {.padding = "same"}};
  nn::BatchNorm norm2{this, "norm2"};
  nn::MaxPool2D pool{this, "pool"};
  nn::Dropout dropout{this, "dropout", 0.25, /*seed=*/1};
  nn::Flatten flatten{this};
  nn::Dense logits{this, "logits", 10};
  Tensor operator()(const Tensor& images, bool training = false) {
    const Tensor h1 = relu(norm1(conv1(images), training));
    const Tensor h2 = relu(norm2(conv2(h1), training));
    return logits(flatten(dropout(pool(h2), training)));
  }
};

}  // namespace duet::fashion_mnist
