// Layers that only change the shape: Flatten ([batch, ...] -> [batch, product]) and Reshape
// (to [batch, target_shape...]; one target dim may be -1).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nn/layer.h"

namespace duet::nn {

class Flatten : public Layer {
 public:
  explicit Flatten(Module* parent, std::string name = "flatten");
  Flatten();

 protected:
  InputSpec input_spec() const override { return {.min_rank = 1}; }
  Tensor call(const Tensor& x, bool training, OpSite site) override;
};

class Reshape : public Layer {
 public:
  Reshape(Module* parent, std::string name, std::vector<int64_t> target_shape);
  explicit Reshape(std::vector<int64_t> target_shape);

 protected:
  InputSpec input_spec() const override { return {.min_rank = 1}; }
  Tensor call(const Tensor& x, bool training, OpSite site) override;

 private:
  std::vector<int64_t> target_shape_;
};

}  // namespace duet::nn
