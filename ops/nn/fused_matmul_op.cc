// _FusedMatMul: MatMul + BiasAdd (+ activation) in one op, as TensorFlow's grappler fuses them.
#include "ops/nn/bias_activation_fusion.h"
#include "ops/nn/fused_nn_ops.h"
#include "ops/nn/matmul_shape.h"
#include "ops/nn/nn_attrs.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

constexpr int kFirstArg = 2;  // args follow a and b

absl::Status FusedMatMulShape(ShapeContext& ctx) {
  DUET_ASSIGN_OR_RETURN(Shape out, MatMulOutputShape(ctx.input_shape(0), ctx.input_shape(1),
                                                     ctx.attr(MatMulAttrs::kTransposeA),
                                                     ctx.attr(MatMulAttrs::kTransposeB)));
  DUET_RETURN_IF_ERROR(
      CheckBiasActivationFusion(ctx, ctx.attr(FusedMatMulAttrs::kFusedOps), kFirstArg, out));
  ctx.set_output(0, ctx.output(0).dtype, std::move(out));
  return absl::OkStatus();
}

const OpDef* const kFusedMatMul =
    OpDefBuilder("_FusedMatMul")
        .Input("a", "T")
        .Input("b", "T")
        .InputList("args", "T", "num_args")
        .Output("product", "T")
        .BoolAttr(MatMulAttrs::kTransposeA, false)
        .BoolAttr(MatMulAttrs::kTransposeB, false)
        .TypeAttr(MatMulAttrs::kT, {kFloat32, kFloat64, kBFloat16})
        .IntAttr(FusedMatMulAttrs::kNumArgs, {}, 0)
        .StringListAttr(FusedMatMulAttrs::kFusedOps, std::vector<std::string>{})
        // TensorFlow's, for FusedBatchNorm fusions; unused.
        .FloatAttr(FusedMatMulAttrs::kEpsilon, 0.0001f)
        .FloatAttr(FusedMatMulAttrs::kLeakyReluAlpha, 0.2f)
        .Doc(
            "Made by the fusion pass from MatMul -> BiasAdd (-> AddV2) (-> A): A(a x b + args[0] "
            "(+ args[1])), with fused_ops [\"BiasAdd\"], then \"Add\" when args[1] (the "
            "output's shape) is added, then A when there is one: Relu, Relu6, Elu, Tanh, "
            "Sigmoid or LeakyRelu.")
        .SetShapeFn(FusedMatMulShape)
        .Register();

}  // namespace

Tensor fused_matmul(const Tensor& a, const Tensor& b, absl::Span<const Tensor> args,
                    std::vector<std::string> fused_ops, bool transpose_a, bool transpose_b,
                    float leakyrelu_alpha, OpSite site) {
  TensorList inputs = {a, b};
  inputs.insert(inputs.end(), args.begin(), args.end());
  OpCall call(kFusedMatMul, std::move(inputs), site);
  call.set(MatMulAttrs::kTransposeA, transpose_a);
  call.set(MatMulAttrs::kTransposeB, transpose_b);
  call.set(FusedMatMulAttrs::kFusedOps, std::move(fused_ops));
  call.set(FusedMatMulAttrs::kLeakyReluAlpha, leakyrelu_alpha);
  return RunSingleOutputOp(call);
}

}  // namespace duet
