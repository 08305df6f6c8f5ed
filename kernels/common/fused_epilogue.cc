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

// Sets the epilogue's activation to the one `name` names; false when it names none.
bool ReadActivation(const std::string& name, FusedEpilogue& epilogue) {
  for (const NamedActivation& a : kActivations) {
    if (name == a.name) {
      epilogue.activation = a.activation;
      return true;
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<FusedEpilogue> ReadFusedEpilogue(const std::vector<std::string>& fused_ops,
                                                float leakyrelu_alpha) {
  FusedEpilogue epilogue{.leakyrelu_alpha = leakyrelu_alpha};
  size_t next = 1;
  bool ok = !fused_ops.empty() && fused_ops[0] == "BiasAdd";
  if (ok && next < fused_ops.size() && fused_ops[next] == "Add") {
    epilogue.add_residual = true;
    ++next;
  }
  if (ok && next < fused_ops.size()) ok = ReadActivation(fused_ops[next++], epilogue);
  if (ok && next == fused_ops.size()) return epilogue;
  return absl::InternalError(absl::StrCat("no kernel has the fusion [",
                                          absl::StrJoin(fused_ops, ", "),
                                          "] (the op's shape function accepted it)"));
}

}  // namespace duet
