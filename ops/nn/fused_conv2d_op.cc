// _FusedConv2D: Conv2D + BiasAdd (+ activation) in one op, as TensorFlow's grappler fuses them.
#include "ops/nn/conv_shape.h"
#include "ops/nn/fused_nn_ops.h"
#include "ops/nn/fusion_attrs.h"
#include "ops/nn/window_shape.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

// Attr positions, in TensorFlow's declaration order.
enum FusedConv2DAttr {
  kFusedConv2DT,
  kFusedConv2DNumArgs,
  kFusedConv2DStrides,
  kFusedConv2DPadding,
  kFusedConv2DExplicitPaddings,
  kFusedConv2DDataFormat,
  kFusedConv2DDilations,
  kFusedConv2DUseCudnnOnGpu,
  kFusedConv2DFusedOps,
  kFusedConv2DEpsilon,
  kFusedConv2DLeakyReluAlpha
};

constexpr int kFirstArg = 2;  // args follow input and filter

absl::Status FusedConv2DShape(ShapeContext& ctx) {
  const Conv2DAttrs attrs{
      .strides = ctx.attr<std::vector<int64_t>>(kFusedConv2DStrides),
      .padding = ctx.attr<std::string>(kFusedConv2DPadding),
      .explicit_paddings = ctx.attr<std::vector<int64_t>>(kFusedConv2DExplicitPaddings),
      .dilations = ctx.attr<std::vector<int64_t>>(kFusedConv2DDilations)};
  DUET_ASSIGN_OR_RETURN(Shape out,
                        Conv2DOutputShape(ctx.input_shape(0), ctx.input_shape(1), attrs));
  DUET_RETURN_IF_ERROR(CheckBiasActivationFusion(
      ctx, ctx.attr<std::vector<std::string>>(kFusedConv2DFusedOps), kFirstArg, out));
  ctx.set_output(0, ctx.output(0).dtype, std::move(out));
  return absl::OkStatus();
}

const OpDef* const kFusedConv2D =
    OpDefBuilder("_FusedConv2D")
        .Input("input", "T")
        .Input("filter", "T")
        .InputList("args", "T", "num_args")
        .Output("output", "T")
        .TypeAttr("T", {kFloat32, kFloat64, kBFloat16})
        .IntAttr("num_args", {}, 0)
        .IntListAttr("strides")
        .StringAttr("padding", {}, {"SAME", "VALID", "EXPLICIT"})
        .IntListAttr("explicit_paddings", std::vector<int64_t>{})
        .StringAttr("data_format", "NHWC", {"NHWC"})
        .IntListAttr("dilations", std::vector<int64_t>{1, 1, 1, 1})
        .BoolAttr("use_cudnn_on_gpu", true)
        .StringListAttr("fused_ops", std::vector<std::string>{})
        .FloatAttr("epsilon", 0.0001f)  // TensorFlow's, for FusedBatchNorm fusions; unused
        .FloatAttr("leakyrelu_alpha", 0.2f)
        .Doc(
            "Made by the fusion pass from Conv2D -> BiasAdd (-> A): A(conv(input, filter) + "
            "args[0]), with fused_ops as _FusedMatMul's.")
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
  call.attrs[kFusedConv2DStrides] = ExpandNhwcAttr(std::move(strides));
  call.attrs[kFusedConv2DPadding] = std::move(padding);
  call.attrs[kFusedConv2DExplicitPaddings] = std::move(explicit_paddings);
  call.attrs[kFusedConv2DDilations] = ExpandNhwcAttr(std::move(dilations));
  call.attrs[kFusedConv2DFusedOps] = std::move(fused_ops);
  call.attrs[kFusedConv2DLeakyReluAlpha] = leakyrelu_alpha;
  return RunOp1(call);
}

}  // namespace duet
