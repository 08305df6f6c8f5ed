#include "nn/dense.h"

#include "ops/math/operators.h"
#include "ops/nn/nn_ops.h"

namespace duet::nn {

Dense::Dense(Module* parent, std::string name, int64_t units, Activation activation,
             DenseOptions options)
    : Layer(parent, std::move(name)),
      units_(units),
      activation_(activation),
      options_(std::move(options)) {
  if (!options_.kernel_initializer) options_.kernel_initializer = initializers::glorot_uniform();
  if (!options_.bias_initializer) options_.bias_initializer = initializers::zeros();
}

Dense::Dense(int64_t units, Activation activation, DenseOptions options)
    : Dense(nullptr, "dense", units, activation, std::move(options)) {}

void Dense::build(const Shape& input_shape) {
  const int64_t in = input_shape.dim(input_shape.rank() - 1);
  kernel_ = add_variable("kernel", Shape{in, units_}, dtype(), options_.kernel_initializer);
  if (options_.use_bias) {
    bias_ = add_variable("bias", Shape{units_}, dtype(), options_.bias_initializer);
  }
}

Tensor Dense::call(const Tensor& x, bool, OpSite site) {
  // Rank 2 is one MatMul (which the fusion passes merge with the bias and activation); higher
  // ranks contract the last axis as Keras' tensordot does.
  Tensor y = x.rank() == 2 ? matmul(x, kernel_, false, false, site)
                           : einsum("...i,io->...o", {x, kernel_.value(site)}, site);
  if (options_.use_bias) y = bias_add(y, bias_, site);
  return activate(activation_, y, site);
}

}  // namespace duet::nn
