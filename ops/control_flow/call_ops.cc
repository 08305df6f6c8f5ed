// PartitionedCall and StatefulPartitionedCall: TensorFlow's ops that call a function (its `f`
// attr) with their inputs. duet::function's traced functions run through them (eagerly too, so a
// GradientTape records one call), and graphs imported from TensorFlow 2 use them. The stateless
// form promises `f` has no side effects, so passes may fold, merge or prune it like a pure op.
#include "absl/strings/str_cat.h"
#include "ops/control_flow/control_flow_attrs.h"
#include "ops/control_flow/control_flow_ops.h"
#include "ops/function_body.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

absl::Status CallShape(ShapeContext& ctx) {
  const FuncAttr& f = ctx.attr(CallAttrs::kF);
  if (f.body == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("function '", f.name, "' is not defined in the graph's library"));
  }
  const auto& tin = ctx.attr(CallAttrs::kTin);
  const auto& tout = ctx.attr(CallAttrs::kTout);
  if (f.body->arg_dtypes() != tin || f.body->result_dtypes() != tout) {
    return absl::InvalidArgumentError(
        absl::StrCat("function '", f.name, "' maps ", AttrValueString(f.body->arg_dtypes()), " to ",
                     AttrValueString(f.body->result_dtypes()), ", but the node's Tin and Tout are ",
                     AttrValueString(tin), " and ", AttrValueString(tout)));
  }
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.input_shape(i).IsCompatibleWith(f.body->arg_shapes()[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument ", i, " of function '", f.name, "' must have shape ",
                       f.body->arg_shapes()[i].str(), ", not ", ctx.input_shape(i).str()));
    }
  }
  for (int k = 0; k < ctx.num_outputs(); ++k) {
    ctx.set_output(k, tout[k], f.body->result_shapes()[k]);
  }
  return absl::OkStatus();
}

const OpDef* RegisterCall(const char* name, bool stateful) {
  OpDefBuilder builder(name);
  builder.InputTypeList("args", "Tin")
      .OutputTypeList("output", "Tout")
      .TypeListAttr(CallAttrs::kTin)
      .TypeListAttr(CallAttrs::kTout)
      .FuncAttr(CallAttrs::kF)
      .StringAttr(CallAttrs::kConfig, "")
      .StringAttr(CallAttrs::kConfigProto, "")
      .StringAttr(CallAttrs::kExecutorType, "")
      .Doc("Calls the function f with args and returns its results.")
      .MultiDevice()
      .SetShapeFn(CallShape);
  if (stateful) builder.Stateful();
  return builder.Register();
}

const OpDef* const kPartitionedCall = RegisterCall("PartitionedCall", /*stateful=*/false);
const OpDef* const kStatefulPartitionedCall =
    RegisterCall("StatefulPartitionedCall", /*stateful=*/true);

}  // namespace

std::vector<Tensor> call_function(std::shared_ptr<const FunctionBody> f,
                                  const std::vector<Tensor>& args, bool stateful, OpSite site) {
  const OpDef* op = stateful ? kStatefulPartitionedCall : kPartitionedCall;
  OpCall call(op, TensorList(args.begin(), args.end()), site);
  call.set(CallAttrs::kTin, f->arg_dtypes());
  call.set(CallAttrs::kTout, f->result_dtypes());
  call.set(CallAttrs::kF, FuncAttr{f->name(), std::move(f)});
  OutputList outputs = RunOp(call);
  return std::vector<Tensor>(outputs.begin(), outputs.end());
}

}  // namespace duet
