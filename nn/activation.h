// Activations by name, as layers take them (nn::Dense d{this, "d", 64, Activation::kRelu}).
#pragma once

#include <string>

#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet {

enum class Activation {
  kLinear,    // identity
  kRelu,      // max(x, 0)
  kGelu,      // x * Phi(x), exact (erf): Keras' gelu default
  kGeluTanh,  // the tanh approximation of gelu (Keras' approximate=True)
  kSigmoid,
  kTanh,
  kElu,       // alpha = 1
  kSoftplus,  // log(1 + e^x)
  kSwish,     // x * sigmoid(x), also called silu
  kSoftmax,   // over the last axis
};

// The activation applied to x.
Tensor activate(Activation activation, const Tensor& x, OpSite site = {});
// Its Keras name ("relu", "gelu", ...), for messages.
std::string ActivationName(Activation activation);

}  // namespace duet
