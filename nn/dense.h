// nn::Dense: activation(x @ kernel + bias) over the last axis of x (Keras' Dense).
#pragma once

#include <cstdint>
#include <string>

#include "nn/activation.h"
#include "nn/initializers.h"
#include "nn/layer.h"

namespace duet::nn {

struct DenseOptions {
  bool use_bias = true;
  Initializer kernel_initializer;  // empty: glorot_uniform
  Initializer bias_initializer;    // empty: zeros
};

class Dense : public Layer {
 public:
  Dense(Module* parent, std::string name, int64_t units,
        Activation activation = Activation::kLinear, DenseOptions options = {});
  explicit Dense(int64_t units, Activation activation = Activation::kLinear,
                 DenseOptions options = {});

  int64_t units() const { return units_; }
  // kernel [in, units] and bias [units]; defined once built.
  const Variable& kernel() const { return kernel_; }
  const Variable& bias() const { return bias_; }

 protected:
  InputSpec input_spec() const override { return {.min_rank = 1, .fixed_last_dim = true}; }
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training, OpSite site) override;

 private:
  int64_t units_;
  Activation activation_;
  DenseOptions options_;
  Variable kernel_, bias_;
};

}  // namespace duet::nn
