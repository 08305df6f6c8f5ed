#include "kernels/common/fused_epilogue.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace duet {
namespace {

struct NamedActivation {
  const char* name;
  FusedActivation activation;
};

constexpr NamedActivation kActivations[] = {
    {"Relu", FusedActivation::kRelu},       {"Relu6", FusedActivation::kRelu6},
    {"Elu", FusedActivation::kElu},         {"Tanh", FusedActivation::kTanh},
    {"Sigmoid", FusedActivation::kSigmoid}, {"LeakyRelu", FusedActivation::kLeakyRelu},
};

}  // namespace

absl::StatusOr<FusedEpilogue> ReadFusedEpilogue(const std::vector<std::string>& fused_ops,
                                                float leakyrelu_alpha) {
  FusedEpilogue epilogue{.leakyrelu_alpha = leakyrelu_alpha};
  const bool bias_first = !fused_ops.empty() && fused_ops.size() <= 2 && fused_ops[0] == "BiasAdd";
  if (bias_first && fused_ops.size() == 1) return epilogue;
  for (const NamedActivation& a : kActivations) {
    if (bias_first && fused_ops[1] == a.name) {
      epilogue.activation = a.activation;
      return epilogue;
    }
  }
  return absl::InternalError(absl::StrCat("no kernel has the fusion [",
                                          absl::StrJoin(fused_ops, ", "),
                                          "] (the op's shape function accepted it)"));
}

}  // namespace duet
