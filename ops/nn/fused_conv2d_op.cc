// _FusedConv2D: Conv2D + BiasAdd (+ activation) in one op, as TensorFlow's grappler fuses them.
#include "ops/nn/bias_activation_fusion.h"
#include "ops/nn/conv_shape.h"
#include "ops/nn/fused_nn_ops.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/window_shape.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

constexpr int kFirstArg = 2;  // args follow input and filter

absl::Status FusedConv2DShape(ShapeContext& ctx) {
  DUET_ASSIGN_OR_RETURN(Shape out, Conv2DOutputShape(ctx));
  DUET_RETURN_IF_ERROR(
      CheckBiasActivationFusion(ctx, ctx.attr(FusedConv2DAttrs::kFusedOps), kFirstArg, out));
  ctx.set_output(0, ctx.output(0).dtype, std::move(out));
  return absl::OkStatus();
}

// Conv2D's attrs at Conv2D's positions (TensorFlow orders them otherwise), then its own.
const OpDef* const kFusedConv2D =
    DeclareConvAttrs(OpDefBuilder("_FusedConv2D")
                         .Input("input", "T")
                         .Input("filter", "T")
                         .InputList("args", "T", "num_args")
                         .Output("output", "T"),
                     {"NHWC"})  // the layout pass runs before fusion
        .IntAttr(FusedConv2DAttrs::kNumArgs, {}, 0)
        .StringListAttr(FusedConv2DAttrs::kFusedOps, std::vector<std::string>{})
        // TensorFlow's, for FusedBatchNorm fusions; unused.
        .FloatAttr(FusedConv2DAttrs::kEpsilon, 0.0001f)
        .FloatAttr(FusedConv2DAttrs::kLeakyReluAlpha, 0.2f)
        .Doc(
            "Made by the fusion pass from Conv2D -> BiasAdd (-> AddV2) (-> A): A(conv(input, "
            "filter) + args[0] (+ args[1])), with fused_ops as _FusedMatMul's.")
        .SetShapeFn(FusedConv2DShape)
        .Register();

}  // namespace

Tensor fused_conv2d(const Tensor& input, const Tensor& filter, absl::Span<const Tensor> args,
                    std::vector<std::string> fused_ops, std::vector<int64_t> strides,
                    std::string padding, std::vector<int64_t> dilations,
                    std::vector<int64_t> explicit_paddings, float leakyrelu_alpha, OpSite site) {
  TensorList inputs = {input, filter};
  inputs.insert(inputs.end(), args.begin(), args.end());
  OpCall call(kFusedConv2D, std::move(inputs), site);
  call.set(ConvAttrs::kStrides, ExpandNhwcAttr(std::move(strides)));
  call.set(ConvAttrs::kPadding, std::move(padding));
  call.set(ConvAttrs::kExplicitPaddings, std::move(explicit_paddings));
  call.set(ConvAttrs::kDilations, ExpandNhwcAttr(std::move(dilations)));
  call.set(FusedConv2DAttrs::kFusedOps, std::move(fused_ops));
  call.set(FusedConv2DAttrs::kLeakyReluAlpha, leakyrelu_alpha);
  return RunSingleOutputOp(call);
}

}  // namespace duet
