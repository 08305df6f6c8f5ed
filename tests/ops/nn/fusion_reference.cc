#include "tests/ops/nn/fusion_reference.h"

#include <stdexcept>

#include "ops/math/math_ops.h"
#include "ops/math/operators.h"
#include "ops/nn/bias_activation_fusion.h"
#include "ops/nn/nn_ops.h"

namespace duet::testing {

std::vector<std::vector<std::string>> SupportedFusedOps() {
  std::vector<std::vector<std::string>> all = {{"BiasAdd"}};
  for (absl::string_view a : kFusedActivations) all.push_back({"BiasAdd", std::string(a)});
  return all;
}

Tensor UnfusedBiasActivation(const Tensor& product, const Tensor& bias,
                             const std::vector<std::string>& fused_ops, float leakyrelu_alpha) {
  const Tensor y = bias_add(product, bias);
  if (fused_ops.size() == 1) return y;
  const std::string& a = fused_ops[1];
  if (a == "Relu") return relu(y);
  if (a == "Relu6") return relu6(y);
  if (a == "Elu") return elu(y);
  if (a == "Tanh") return tanh(y);
  if (a == "Sigmoid") return sigmoid(y);
  if (a == "LeakyRelu") return where(y > 0, y, y * leakyrelu_alpha);  // duet has no LeakyRelu op
  throw std::invalid_argument("UnfusedBiasActivation: unknown activation " + a);
}

}  // namespace duet::testing
