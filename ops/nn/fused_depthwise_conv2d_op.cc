// _FusedDepthwiseConv2dNative: DepthwiseConv2dNative + BiasAdd (+ activation) in one op, as
// TensorFlow's grappler fuses them (MobileNet's depthwise -> bias -> Relu6).
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

absl::Status FusedDepthwiseConv2dNativeShape(ShapeContext& ctx) {
  DUET_ASSIGN_OR_RETURN(Shape out,
                        ConvOutputShape(ctx, ConvKind::kDepthwise, kFusedDepthwiseWindowKeys));
  DUET_RETURN_IF_ERROR(
      CheckBiasActivationFusion(ctx, ctx.attr(FusedDepthwiseConvAttrs::kFusedOps), kFirstArg, out));
  ctx.set_output(0, ctx.output(0).dtype, std::move(out));
  return absl::OkStatus();
}

// TensorFlow's attrs in TensorFlow's order, which is not DepthwiseConv2dNative's: no
// explicit_paddings (so no EXPLICIT padding), num_args second. NHWC only, as the kernels.
const OpDef* const kFusedDepthwiseConv2dNative =
    OpDefBuilder("_FusedDepthwiseConv2dNative")
        .Input("input", "T")
        .Input("filter", "T")
        .InputList("args", "T", "num_args")
        .Output("output", "T")
        .TypeAttr(FusedDepthwiseConvAttrs::kT, {kFloat32, kFloat64, kBFloat16})
        .IntAttr(FusedDepthwiseConvAttrs::kNumArgs, {}, 0)
        .IntListAttr(FusedDepthwiseConvAttrs::kStrides)
        .StringAttr(FusedDepthwiseConvAttrs::kPadding, {}, {"SAME", "VALID"})
        .StringAttr(FusedDepthwiseConvAttrs::kDataFormat, "NHWC", {"NHWC"})
        .IntListAttr(FusedDepthwiseConvAttrs::kDilations, std::vector<int64_t>{1, 1, 1, 1})
        .StringListAttr(FusedDepthwiseConvAttrs::kFusedOps, std::vector<std::string>{})
        // TensorFlow's, for FusedBatchNorm fusions; unused.
        .FloatAttr(FusedDepthwiseConvAttrs::kEpsilon, 0.0001f)
        .FloatAttr(FusedDepthwiseConvAttrs::kLeakyReluAlpha, 0.2f)
        .Doc(
            "Made by the fusion pass from DepthwiseConv2dNative -> BiasAdd (-> AddV2) (-> A): "
            "A(depthwise_conv(input, filter) + args[0] (+ args[1])), with fused_ops as "
            "_FusedMatMul's.")
        .SetShapeFn(FusedDepthwiseConv2dNativeShape)
        .Register();

}  // namespace

Tensor fused_depthwise_conv2d(const Tensor& input, const Tensor& filter,
                              absl::Span<const Tensor> args, std::vector<std::string> fused_ops,
                              std::vector<int64_t> strides, std::string padding,
                              std::vector<int64_t> dilations, float leakyrelu_alpha, OpSite site) {
  TensorList inputs = {input, filter};
  inputs.insert(inputs.end(), args.begin(), args.end());
  OpCall call(kFusedDepthwiseConv2dNative, std::move(inputs), site);
  call.set(FusedDepthwiseConvAttrs::kStrides, ExpandNhwcAttr(std::move(strides)));
  call.set(FusedDepthwiseConvAttrs::kPadding, std::move(padding));
  call.set(FusedDepthwiseConvAttrs::kDilations, ExpandNhwcAttr(std::move(dilations)));
  call.set(FusedDepthwiseConvAttrs::kFusedOps, std::move(fused_ops));
  call.set(FusedDepthwiseConvAttrs::kLeakyReluAlpha, leakyrelu_alpha);
  return RunSingleOutputOp(call);
}

}  // namespace duet
