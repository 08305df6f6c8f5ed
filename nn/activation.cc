#include "nn/activation.h"

#include <cmath>

#include "ops/math/math_ops.h"
#include "ops/math/operators.h"
#include "ops/nn/nn_ops.h"

namespace duet {
namespace {

Tensor Gelu(const Tensor& x, OpSite site) {
  return 0.5 * x * (1.0 + erf(x * (1.0 / std::sqrt(2.0)), site));
}

Tensor GeluTanh(const Tensor& x, OpSite site) {
  const double c = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + tanh(c * (x + 0.044715 * x * x * x), site));
}

}  // namespace

Tensor activate(Activation activation, const Tensor& x, OpSite site) {
  switch (activation) {
    case Activation::kLinear:
      return x;
    case Activation::kRelu:
      return relu(x, site);
    case Activation::kGelu:
      return Gelu(x, site);
    case Activation::kGeluTanh:
      return GeluTanh(x, site);
    case Activation::kSigmoid:
      return sigmoid(x, site);
    case Activation::kTanh:
      return tanh(x, site);
    case Activation::kElu:
      return elu(x, site);
    case Activation::kSoftplus:
      return softplus(x, site);
    case Activation::kSwish:
      return x * sigmoid(x, site);
    case Activation::kSoftmax:
      return softmax(x, site);
  }
  return x;
}

std::string ActivationName(Activation activation) {
  switch (activation) {
    case Activation::kLinear:
      return "linear";
    case Activation::kRelu:
      return "relu";
    case Activation::kGelu:
      return "gelu";
    case Activation::kGeluTanh:
      return "gelu_tanh";
    case Activation::kSigmoid:
      return "sigmoid";
    case Activation::kTanh:
      return "tanh";
    case Activation::kElu:
      return "elu";
    case Activation::kSoftplus:
      return "softplus";
    case Activation::kSwish:
      return "swish";
    case Activation::kSoftmax:
      return "softmax";
  }
  return "unknown";
}

}  // namespace duet
