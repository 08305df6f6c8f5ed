// Pooling layers over NHWC images: MaxPool2D, AvgPool2D (strides default to the pool size, as in
// Keras) and GlobalAveragePooling2D (the mean over height and width).
#pragma once

#include <optional>
#include <string>

#include "nn/conv.h"
#include "nn/layer.h"

namespace duet::nn {

struct PoolOptions {
  std::optional<Size2> strides;   // empty: the pool size
  std::string padding = "valid";  // "valid" or "same"
};

class MaxPool2D : public Layer {
 public:
  MaxPool2D(Module* parent, std::string name, Size2 pool_size = 2, PoolOptions options = {});
  explicit MaxPool2D(Size2 pool_size = 2, PoolOptions options = {});

 protected:
  InputSpec input_spec() const override { return {.rank = 4}; }
  Tensor call(const Tensor& x, bool training, OpSite site) override;

 private:
  Size2 pool_size_;
  PoolOptions options_;
};

class AvgPool2D : public Layer {
 public:
  AvgPool2D(Module* parent, std::string name, Size2 pool_size = 2, PoolOptions options = {});
  explicit AvgPool2D(Size2 pool_size = 2, PoolOptions options = {});

 protected:
  InputSpec input_spec() const override { return {.rank = 4}; }
  Tensor call(const Tensor& x, bool training, OpSite site) override;

 private:
  Size2 pool_size_;
  PoolOptions options_;
};

class GlobalAveragePooling2D : public Layer {
 public:
  GlobalAveragePooling2D(Module* parent, std::string name, bool keep_dims = false);
  explicit GlobalAveragePooling2D(bool keep_dims = false);

 protected:
  InputSpec input_spec() const override { return {.rank = 4}; }
  Tensor call(const Tensor& x, bool training, OpSite site) override;

 private:
  bool keep_dims_;
};

}  // namespace duet::nn
