#include "ops/nn/bias_activation_fusion.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/attr_value.h"

namespace duet {
namespace {

bool IsActivation(const std::string& name) {
  return std::find(std::begin(kFusedActivations), std::end(kFusedActivations), name) !=
         std::end(kFusedActivations);
}

// The number of args `fused_ops` takes (the bias, and the residual with "Add"), or 0 when it is
// not a supported fusion.
int ArgsOf(const std::vector<std::string>& fused_ops) {
  if (fused_ops.empty() || fused_ops[0] != "BiasAdd") return 0;
  size_t next = 1;
  const bool add = next < fused_ops.size() && fused_ops[next] == "Add";
  if (add) ++next;
  if (next < fused_ops.size() && IsActivation(fused_ops[next])) ++next;
  if (next != fused_ops.size()) return 0;
  return add ? 2 : 1;
}

absl::Status CheckBias(const Shape& bias, const Shape& output, absl::string_view fused) {
  if (bias.unknown_rank()) return absl::OkStatus();
  const int64_t channels = output.unknown_rank() ? -1 : output[output.rank() - 1];
  if (bias.rank() == 1 && (channels < 0 || bias[0] < 0 || bias[0] == channels)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "the bias (args[0] of fused_ops ", fused, ") must be 1-D with one value per output channel (",
      channels, ", the last dim of the output shape ", output.str(), "), got shape ", bias.str()));
}

absl::Status CheckResidual(const Shape& residual, const Shape& output, absl::string_view fused) {
  if (residual.IsCompatibleWith(output)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("the residual (args[1] of fused_ops ", fused,
                                                 ") must have the output's shape ", output.str(),
                                                 ", got shape ", residual.str()));
}

}  // namespace

absl::Status CheckBiasActivationFusion(const ShapeContext& ctx,
                                       const std::vector<std::string>& fused_ops, int first_arg,
                                       const Shape& output) {
  const std::string fused = AttrValueString(fused_ops);
  const int args = ArgsOf(fused_ops);
  if (args == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fused_ops ", fused,
        " is not supported: expected \"BiasAdd\", then optionally \"Add\", then optionally one of ",
        absl::StrJoin(kFusedActivations, ", ")));
  }
  const int num_args = ctx.num_inputs() - first_arg;
  if (num_args != args) {
    return absl::InvalidArgumentError(
        absl::StrCat("fused_ops ", fused, " takes ", args,
                     args == 1 ? " arg (the bias)" : " args (the bias and the residual)",
                     ", got num_args=", num_args));
  }
  DUET_RETURN_IF_ERROR(CheckBias(ctx.input_shape(first_arg), output, fused));
  if (args == 2) return CheckResidual(ctx.input_shape(first_arg + 1), output, fused);
  return absl::OkStatus();
}

}  // namespace duet
