// Pooling layers over NHWC images: MaxPool2D, AvgPool2D (strides default to the pool size, as in
// Keras) and GlobalAveragePooling2D (the mean over height and width).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nn/conv.h"
#include "nn/layer.h"

namespace duet::nn {

struct PoolOptions {
  std::optional<Size2> strides;                        // empty: the pool size
  std::string padding = "valid";                       // "valid" or "same"
  DataFormat data_format = DataFormat::kChannelsLast;  // kChannelsFirst: (N, C, H, W) input
};

// MaxPool2D and AvgPool2D: a window op over NHWC input.
class Pool2D : public Layer {
 protected:
  using PoolOp = Tensor (*)(const Tensor&, std::vector<int64_t>, std::vector<int64_t>, std::string,
                            DataFormat, OpSite);
  Pool2D(Module* parent, std::string name, PoolOp op, Size2 pool_size, PoolOptions options);
  InputSpec input_spec() const override { return {.rank = 4}; }
  Tensor call(const Tensor& x, bool training, OpSite site) override;

 private:
  PoolOp op_;
  Size2 pool_size_;
  PoolOptions options_;
};

class MaxPool2D : public Pool2D {
 public:
  MaxPool2D(Module* parent, std::string name, Size2 pool_size = 2, PoolOptions options = {});
  explicit MaxPool2D(Size2 pool_size = 2, PoolOptions options = {});
};

class AvgPool2D : public Pool2D {
 public:
  AvgPool2D(Module* parent, std::string name, Size2 pool_size = 2, PoolOptions options = {});
  explicit AvgPool2D(Size2 pool_size = 2, PoolOptions options = {});
};

class GlobalAveragePooling2D : public Layer {
 public:
  // kChannelsFirst: the mean over dims 2 and 3 of (N, C, H, W) input.
  GlobalAveragePooling2D(Module* parent, std::string name, bool keep_dims = false,
                         DataFormat data_format = DataFormat::kChannelsLast);
  explicit GlobalAveragePooling2D(bool keep_dims = false,
                                  DataFormat data_format = DataFormat::kChannelsLast);

 protected:
  InputSpec input_spec() const override { return {.rank = 4}; }
  Tensor call(const Tensor& x, bool training, OpSite site) override;

 private:
  bool keep_dims_;
  DataFormat data_format_ = DataFormat::kChannelsLast;
};

}  // namespace duet::nn
