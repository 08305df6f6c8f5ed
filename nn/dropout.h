// nn::Dropout: in training, zeroes each element with probability `rate` and scales the rest by
// 1 / (1 - rate); the identity at inference.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "nn/layer.h"

namespace duet::nn {

// Note [Dropout seeds]: the mask is StatelessRandomUniform with the seed pair (seed, step), where
// step is a non-trainable int64 variable the layer increments on every training call. So each
// call draws a new mask, and the same program gives the same masks eagerly, traced and in a
// Session, and again after a checkpoint restores the step.
class Dropout : public Layer {
 public:
  Dropout(Module* parent, std::string name, double rate, std::optional<int64_t> seed = {});
  explicit Dropout(double rate, std::optional<int64_t> seed = {});

  double rate() const { return rate_; }

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training, OpSite site) override;

 private:
  double rate_;
  int64_t seed_;
  Variable step_;
};

}  // namespace duet::nn
