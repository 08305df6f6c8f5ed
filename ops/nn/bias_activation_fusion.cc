#include "ops/nn/bias_activation_fusion.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/attr_value.h"

namespace duet {
namespace {

bool IsSupported(const std::vector<std::string>& fused_ops) {
  if (fused_ops.empty() || fused_ops.size() > 2 || fused_ops[0] != "BiasAdd") return false;
  return fused_ops.size() == 1 ||
         std::find(std::begin(kFusedActivations), std::end(kFusedActivations), fused_ops[1]) !=
             std::end(kFusedActivations);
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

}  // namespace

absl::Status CheckBiasActivationFusion(const ShapeContext& ctx,
                                       const std::vector<std::string>& fused_ops, int first_arg,
                                       const Shape& output) {
  const std::string fused = AttrValueString(fused_ops);
  if (!IsSupported(fused_ops)) {
    return absl::InvalidArgumentError(
        absl::StrCat("fused_ops ", fused,
                     " is not supported: expected [\"BiasAdd\"] or [\"BiasAdd\", A] with A ",
                     "one of ", absl::StrJoin(kFusedActivations, ", ")));
  }
  const int num_args = ctx.num_inputs() - first_arg;
  if (num_args != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fused_ops ", fused, " takes exactly one arg (the bias), got num_args=", num_args));
  }
  return CheckBias(ctx.input_shape(first_arg), output, fused);
}

}  // namespace duet
