// TensorFlow's functional control flow: If/StatelessIf run one of two functions, While/
// StatelessWhile run a body function while a cond function is true (graph/control_flow.h builds
// them from cond and while_loop). The Stateless forms promise their functions have no side
// effects, so graph passes may fold, deduplicate or prune them like any pure op.
//
// Shape functions trust the functions' signatures, which their kernels check at every call: the
// outputs of If are what both branches' results have in common, those of While the loop
// variables' shapes that hold in every iteration (the body's argument shapes).
#include "absl/strings/str_cat.h"
#include "ops/control_flow/control_flow_attrs.h"
#include "ops/function_body.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

std::string TypesString(const std::vector<DType>& types) { return AttrValueString(types); }

absl::StatusOr<const FunctionBody*> Body(const ShapeContext& ctx, const AttrKey<FuncAttr>& key) {
  const FuncAttr& func = ctx.attr(key);
  if (func.body == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("function '", func.name, "' is not defined in the graph's library"));
  }
  return func.body.get();
}

// OK when `body` takes `args` and (unless `results` is null) returns `results`.
absl::Status CheckSignature(const FunctionBody& body, const std::vector<DType>& args,
                            const std::vector<DType>* results) {
  if (body.arg_dtypes() != args) {
    return absl::InvalidArgumentError(absl::StrCat("function '", body.name(), "' takes ",
                                                   TypesString(body.arg_dtypes()),
                                                   ", but the node passes ", TypesString(args)));
  }
  if (results != nullptr && body.result_dtypes() != *results) {
    return absl::InvalidArgumentError(
        absl::StrCat("function '", body.name(), "' returns ", TypesString(body.result_dtypes()),
                     ", but the node's outputs are ", TypesString(*results)));
  }
  return absl::OkStatus();
}

// Narrows output k's shape by the node's output_shapes attr (empty: no claim).
absl::Status ApplyOutputShapes(ShapeContext& ctx, const AttrKey<std::vector<Shape>>& key) {
  const auto& claimed = ctx.attr(key);
  if (claimed.empty()) return absl::OkStatus();
  if (static_cast<int>(claimed.size()) != ctx.num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat("output_shapes has ", claimed.size(),
                                                   " shapes for ", ctx.num_outputs(), " outputs"));
  }
  for (int k = 0; k < ctx.num_outputs(); ++k) {
    const Shape& inferred = ctx.output(k).shape;
    if (!inferred.IsCompatibleWith(claimed[k])) {
      return absl::InvalidArgumentError(absl::StrCat("output ", k, " has shape ", inferred.str(),
                                                     " but output_shapes says ", claimed[k].str()));
    }
    ctx.set_output(k, ctx.output(k).dtype, inferred.Merge(claimed[k]));
  }
  return absl::OkStatus();
}

absl::Status IfShape(ShapeContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const FunctionBody* then_body, Body(ctx, IfAttrs::kThenBranch));
  DUET_ASSIGN_OR_RETURN(const FunctionBody* else_body, Body(ctx, IfAttrs::kElseBranch));
  const auto& tin = ctx.attr(IfAttrs::kTin);
  const auto& tout = ctx.attr(IfAttrs::kTout);
  DUET_RETURN_IF_ERROR(CheckSignature(*then_body, tin, &tout));
  DUET_RETURN_IF_ERROR(CheckSignature(*else_body, tin, &tout));
  for (size_t k = 0; k < tout.size(); ++k) {
    ctx.set_output(
        static_cast<int>(k), tout[k],
        then_body->result_shapes()[k].MostSpecificCompatible(else_body->result_shapes()[k]));
  }
  return ApplyOutputShapes(ctx, IfAttrs::kOutputShapes);
}

absl::Status WhileShape(ShapeContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const FunctionBody* cond, Body(ctx, WhileAttrs::kCond));
  DUET_ASSIGN_OR_RETURN(const FunctionBody* body, Body(ctx, WhileAttrs::kBody));
  const auto& types = ctx.attr(WhileAttrs::kT);
  DUET_RETURN_IF_ERROR(CheckSignature(*cond, types, nullptr));
  DUET_RETURN_IF_ERROR(CheckSignature(*body, types, &types));
  if (cond->result_dtypes().size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("the cond function '", cond->name(),
                                                   "' must return one tensor, not ",
                                                   cond->result_dtypes().size()));
  }
  for (size_t k = 0; k < types.size(); ++k) {
    const Shape& invariant = body->arg_shapes()[k];
    if (!ctx.input_shape(static_cast<int>(k)).IsCompatibleWith(invariant)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "loop variable ", k, " has shape ", ctx.input_shape(static_cast<int>(k)).str(),
          " but the body '", body->name(), "' takes ", invariant.str()));
    }
    ctx.set_output(static_cast<int>(k), types[k], invariant);
  }
  return ApplyOutputShapes(ctx, WhileAttrs::kOutputShapes);
}

const OpDef* RegisterIf(const char* name, bool stateful) {
  OpDefBuilder builder(name);
  builder.Input("cond", "Tcond")
      .HostInputs({"cond"})
      .InputTypeList("input", "Tin")
      .OutputTypeList("output", "Tout")
      .TypeAttr(IfAttrs::kTcond)
      .TypeListAttr(IfAttrs::kTin)
      .TypeListAttr(IfAttrs::kTout)
      .FuncAttr(IfAttrs::kThenBranch)
      .FuncAttr(IfAttrs::kElseBranch)
      .ShapeListAttr(IfAttrs::kOutputShapes, std::vector<Shape>{})
      .Doc(
          "Calls then_branch(input) when cond is true (nonzero, or a non-empty tensor), else "
          "else_branch(input).")
      .MultiDevice()
      .SetShapeFn(IfShape);
  if (stateful) builder.Stateful();
  return builder.Register();
}

const OpDef* RegisterWhile(const char* name, bool stateful) {
  OpDefBuilder builder(name);
  builder.InputTypeList("input", "T")
      .OutputTypeList("output", "T")
      .TypeListAttr(WhileAttrs::kT)
      .FuncAttr(WhileAttrs::kCond)
      .FuncAttr(WhileAttrs::kBody)
      .ShapeListAttr(WhileAttrs::kOutputShapes, std::vector<Shape>{})
      .IntAttr(WhileAttrs::kParallelIterations, 10)
      .Doc("Loop variables start as input; while cond(vars) is true, vars = body(vars).")
      .MultiDevice()
      .SetShapeFn(WhileShape);
  if (stateful) builder.Stateful();
  return builder.Register();
}

[[maybe_unused]] const OpDef* const kIf = RegisterIf("If", /*stateful=*/true);
[[maybe_unused]] const OpDef* const kStatelessIf = RegisterIf("StatelessIf", /*stateful=*/false);
[[maybe_unused]] const OpDef* const kWhile = RegisterWhile("While", /*stateful=*/true);
[[maybe_unused]] const OpDef* const kStatelessWhile =
    RegisterWhile("StatelessWhile", /*stateful=*/false);

}  // namespace
}  // namespace duet
