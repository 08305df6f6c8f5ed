// _FusedMatMul: MatMul + BiasAdd (+ activation) in one op, as TensorFlow's grappler fuses them.
#include "ops/nn/fused_nn_ops.h"
#include "ops/nn/fusion_attrs.h"
#include "ops/nn/matmul_shape.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

// Attr positions, in TensorFlow's declaration order.
enum FusedMatMulAttr {
  kFusedMatMulTransposeA,
  kFusedMatMulTransposeB,
  kFusedMatMulT,
  kFusedMatMulNumArgs,
  kFusedMatMulFusedOps,
  kFusedMatMulEpsilon,
  kFusedMatMulLeakyReluAlpha
};

constexpr int kFirstArg = 2;  // args follow a and b

absl::Status FusedMatMulShape(ShapeContext& ctx) {
  DUET_ASSIGN_OR_RETURN(Shape out, MatMulOutputShape(ctx.input_shape(0), ctx.input_shape(1),
                                                     ctx.attr<bool>(kFusedMatMulTransposeA),
                                                     ctx.attr<bool>(kFusedMatMulTransposeB)));
  DUET_RETURN_IF_ERROR(CheckBiasActivationFusion(
      ctx, ctx.attr<std::vector<std::string>>(kFusedMatMulFusedOps), kFirstArg, out));
  ctx.set_output(0, ctx.output(0).dtype, std::move(out));
  return absl::OkStatus();
}

const OpDef* const kFusedMatMul =
    OpDefBuilder("_FusedMatMul")
        .Input("a", "T")
        .Input("b", "T")
        .InputList("args", "T", "num_args")
        .Output("product", "T")
        .BoolAttr("transpose_a", false)
        .BoolAttr("transpose_b", false)
        .TypeAttr("T", {kFloat32, kFloat64, kBFloat16})
        .IntAttr("num_args", {}, 0)
        .StringListAttr("fused_ops", std::vector<std::string>{})
        .FloatAttr("epsilon", 0.0001f)  // TensorFlow's, for FusedBatchNorm fusions; unused
        .FloatAttr("leakyrelu_alpha", 0.2f)
        .Doc(
            "Made by the fusion pass from MatMul -> BiasAdd (-> A): A(a x b + args[0]), with "
            "fused_ops [\"BiasAdd\"] or [\"BiasAdd\", A], A one of Relu, Relu6, Elu, Tanh, "
            "Sigmoid, LeakyRelu.")
        .SetShapeFn(FusedMatMulShape)
        .Register();

}  // namespace

Tensor fused_matmul(const Tensor& a, const Tensor& b, absl::Span<const Tensor> args,
                    std::vector<std::string> fused_ops, bool transpose_a, bool transpose_b,
                    float leakyrelu_alpha, OpSite site) {
  TensorList inputs = {a, b};
  inputs.insert(inputs.end(), args.begin(), args.end());
  OpCall call(kFusedMatMul, std::move(inputs), site);
  call.attrs[kFusedMatMulTransposeA] = transpose_a;
  call.attrs[kFusedMatMulTransposeB] = transpose_b;
  call.attrs[kFusedMatMulFusedOps] = std::move(fused_ops);
  call.attrs[kFusedMatMulLeakyReluAlpha] = leakyrelu_alpha;
  return RunOp1(call);
}

}  // namespace duet
