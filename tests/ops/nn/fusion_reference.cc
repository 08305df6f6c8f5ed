#include "tests/ops/nn/fusion_reference.h"

#include <algorithm>
#include <stdexcept>

#include "ops/math/math_ops.h"
#include "ops/math/operators.h"
#include "ops/nn/bias_activation_fusion.h"
#include "ops/nn/nn_ops.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

bool AddsResidual(const std::vector<std::string>& fused_ops) {
  return std::find(fused_ops.begin(), fused_ops.end(), "Add") != fused_ops.end();
}

Tensor Activate(const Tensor& y, const std::string& a, float leakyrelu_alpha) {
  if (a == "Relu") return relu(y);
  if (a == "Relu6") return relu6(y);
  if (a == "Elu") return elu(y);
  if (a == "Tanh") return tanh(y);
  if (a == "Sigmoid") return sigmoid(y);
  if (a == "LeakyRelu") return where(y > 0, y, y * leakyrelu_alpha);  // duet has no LeakyRelu op
  throw std::invalid_argument("UnfusedEpilogue: unknown activation " + a);
}

}  // namespace

std::vector<std::vector<std::string>> SupportedFusedOps() {
  std::vector<std::vector<std::string>> all;
  for (const std::vector<std::string>& start :
       std::vector<std::vector<std::string>>{{"BiasAdd"}, {"BiasAdd", "Add"}}) {
    all.push_back(start);
    for (absl::string_view a : kFusedActivations) {
      all.push_back(start);
      all.back().emplace_back(a);
    }
  }
  return all;
}

std::vector<Tensor> FusionArgs(const std::vector<std::string>& fused_ops, const Tensor& bias,
                               const Shape& out) {
  if (!AddsResidual(fused_ops)) return {bias};
  return {bias, MakeTensor(bias.dtype(), out, ModPattern(out.num_elements(), 3, 19, 9, 4))};
}

Tensor UnfusedEpilogue(const Tensor& product, absl::Span<const Tensor> args,
                       const std::vector<std::string>& fused_ops, float leakyrelu_alpha) {
  Tensor y = bias_add(product, args[0]);
  if (AddsResidual(fused_ops)) y = y + args[1];
  const std::string& last = fused_ops.back();
  if (last == "BiasAdd" || last == "Add") return y;
  return Activate(y, last, leakyrelu_alpha);
}

}  // namespace duet::testing
