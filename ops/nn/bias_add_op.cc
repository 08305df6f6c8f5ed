// BiasAdd: adds a per-channel bias along the last dim (NHWC).
#include "absl/strings/str_cat.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/nn_ops.h"
#include "ops/nn/window_shape.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

absl::Status BiasAddShape(ShapeContext& ctx) {
  const Shape& value = ctx.input_shape(0);
  const Shape& bias = ctx.input_shape(1);
  if (!bias.unknown_rank() && bias.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("bias must be 1-D, got shape ", bias.str()));
  }
  if (!value.unknown_rank() && value.rank() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("value must be at least 2-D, got shape ", value.str()));
  }
  if (!value.unknown_rank() && !bias.unknown_rank()) {
    const int64_t channels = value[value.rank() - 1];
    if (channels >= 0 && bias[0] >= 0 && channels != bias[0]) {
      return absl::InvalidArgumentError(
          absl::StrCat("bias has ", bias[0], " elements but the last dim of value is ", channels,
                       " (shapes ", value.str(), " and ", bias.str(), ")"));
    }
  }
  ctx.set_output(0, ctx.output(0).dtype, value);
  return absl::OkStatus();
}

const OpDef* const kBiasAdd = OpDefBuilder("BiasAdd")
                                  .Input("value", "T")
                                  .Input("bias", "T")
                                  .Output("output", "T")
                                  .TypeAttr(BiasAddAttrs::kT, kRealNumberTypes)
                                  .StringAttr(BiasAddAttrs::kDataFormat, "NHWC", {"NHWC", "NCHW"})
                                  .ChannelsFirst({"value"}, {}, {"output"})
                                  .Doc("value + bias, bias 1-D along the last (channel) dim.")
                                  .SetShapeFn(BiasAddShape)
                                  .Register();

}  // namespace

Tensor bias_add(const Tensor& value, const Tensor& bias, OpSite site) {
  OpCall call(kBiasAdd, {value, bias}, site);
  return RunSingleOutputOp(call);
}

Tensor bias_add(const Tensor& value, const Tensor& bias, DataFormat format, OpSite site) {
  OpCall call(kBiasAdd, {value, bias}, site);
  UseDataFormat(call, format);
  return RunSingleOutputOp(call);
}

}  // namespace duet
