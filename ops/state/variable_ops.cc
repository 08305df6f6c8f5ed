// VarHandleOp, ReadVariableOp, AssignVariableOp, AssignAddVariableOp, AssignSubVariableOp.
#include "ops/state/variable_ops.h"

#include "absl/strings/str_cat.h"
#include "core/resource.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"
#include "ops/state/state_attrs.h"

namespace duet {
namespace {

// The variable behind input 0 when its handle is known (always in eager mode).
const VariableResource* KnownVariable(const ShapeContext& ctx) {
  const Tensor* handle = ctx.input_value(0);
  return handle == nullptr ? nullptr : VariableOf(*handle);
}

const Shape kScalarShape;  // a named scalar shape: a temporary trips a false -Wuninitialized

absl::Status VarHandleShape(ShapeContext& ctx) {
  ctx.set_output(0, kResource, kScalarShape);
  return absl::OkStatus();
}

absl::Status ReadVariableShape(ShapeContext& ctx) {
  const DType dtype = ctx.attr(VariableAttrs::kDtype);
  const VariableResource* variable = KnownVariable(ctx);
  if (variable == nullptr) {
    ctx.set_output(0, dtype, Shape::UnknownRank());
    return absl::OkStatus();
  }
  if (variable->dtype != dtype) {
    return absl::InvalidArgumentError(absl::StrCat("variable '", variable->name, "' is ",
                                                   DTypeName(variable->dtype), ", not ",
                                                   DTypeName(dtype)));
  }
  ctx.set_output(0, dtype, variable->shape);
  return absl::OkStatus();
}

absl::Status AssignShape(ShapeContext& ctx) {
  const VariableResource* variable = KnownVariable(ctx);
  if (variable == nullptr) return absl::OkStatus();
  return CheckAssignable(*variable, ctx.input_dtype(1), ctx.input_shape(1));
}

const OpDef* const kVarHandleOp =
    OpDefBuilder("VarHandleOp")
        .Output("resource", kResource)
        .StringAttr(VarHandleAttrs::kContainer, "")
        .StringAttr(VarHandleAttrs::kSharedName, "")
        .TypeAttr(VarHandleAttrs::kDtype)
        .ShapeAttr(VarHandleAttrs::kShape)
        .StringAttr(VarHandleAttrs::kDebugName, "")
        .Stateful()
        .Doc("A handle to a new, uninitialized variable of the given dtype and shape.")
        .SetShapeFn(VarHandleShape)
        .Register();

const OpDef* const kReadVariableOp =
    OpDefBuilder("ReadVariableOp")
        .Input("resource", kResource)
        .Output("value", "dtype")
        .TypeAttr(VariableAttrs::kDtype)
        .Stateful()  // its result depends on assignments: never folded or merged
        .Doc("The current value of a variable.")
        .SetShapeFn(ReadVariableShape)
        .Register();

OpDefBuilder AssignOp(const char* name, const char* doc) {
  OpDefBuilder b(name);
  b.Input("resource", kResource)
      .Input("value", "dtype")
      .TypeAttr(VariableAttrs::kDtype)
      .Stateful()
      .Doc(doc)
      .SetShapeFn(AssignShape);
  return b;
}

// validate_shape: TensorFlow's; duet always checks the shape.
const OpDef* const kAssignVariableOp =
    AssignOp("AssignVariableOp", "Sets a variable to a value of its dtype and shape.")
        .BoolAttr(AssignVariableAttrs::kValidateShape, false)
        .Register();
const OpDef* const kAssignAddVariableOp =
    AssignOp("AssignAddVariableOp", "Adds a value of the variable's dtype and shape to it.")
        .KeepsNoInputs()
        .Register();
const OpDef* const kAssignSubVariableOp =
    AssignOp("AssignSubVariableOp", "Subtracts a value of the variable's dtype and shape from it.")
        .KeepsNoInputs()
        .Register();

absl::Status ApplyGradientDescentShape(ShapeContext& ctx) {
  if (ctx.input_shape(1).rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("alpha must be a scalar, got shape ", ctx.input_shape(1).str()));
  }
  const VariableResource* variable = KnownVariable(ctx);
  if (variable == nullptr) return absl::OkStatus();
  return CheckAssignable(*variable, ctx.input_dtype(2), ctx.input_shape(2));
}

const OpDef* const kResourceApplyGradientDescent =
    OpDefBuilder("ResourceApplyGradientDescent")
        .Input("var", kResource)
        .Input("alpha", "T")
        .Input("delta", "T")
        .TypeAttr(ApplyGradientDescentAttrs::kT, {kFloat32, kFloat64})
        .BoolAttr(ApplyGradientDescentAttrs::kUseLocking, false)
        .Stateful()
        .KeepsNoInputs()
        .Doc("var -= alpha * delta, in one pass over the variable (the SGD update).")
        .SetShapeFn(ApplyGradientDescentShape)
        .Register();

void RunAssign(const OpDef* op, const Tensor& resource, const Tensor& value, OpSite site) {
  OpCall call(op, {resource, value}, site);
  RunOp(call);
}

}  // namespace

Tensor var_handle_op(DType dtype, const Shape& shape, const std::string& shared_name, OpSite site) {
  OpCall call(kVarHandleOp, {}, site);
  call.set(VarHandleAttrs::kSharedName, shared_name);
  call.set(VarHandleAttrs::kDtype, dtype);
  call.set(VarHandleAttrs::kShape, shape);
  return RunSingleOutputOp(call);
}

Tensor read_variable_op(const Tensor& resource, DType dtype, OpSite site) {
  OpCall call(kReadVariableOp, {resource}, site);
  call.set(VariableAttrs::kDtype, dtype);
  return RunSingleOutputOp(call);
}

void assign_variable_op(const Tensor& resource, const Tensor& value, OpSite site) {
  RunAssign(kAssignVariableOp, resource, value, site);
}

void assign_add_variable_op(const Tensor& resource, const Tensor& value, OpSite site) {
  RunAssign(kAssignAddVariableOp, resource, value, site);
}

void assign_sub_variable_op(const Tensor& resource, const Tensor& value, OpSite site) {
  RunAssign(kAssignSubVariableOp, resource, value, site);
}

void resource_apply_gradient_descent(const Tensor& resource, const Tensor& alpha,
                                     const Tensor& delta, OpSite site) {
  OpCall call(kResourceApplyGradientDescent, {resource, alpha, delta}, site);
  RunOp(call);
}

}  // namespace duet
