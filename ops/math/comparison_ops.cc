// Comparisons (bool results): Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual; and the
// logical ops on bool tensors: LogicalAnd, LogicalOr, LogicalNot.
#include "ops/common_shape_fns.h"
#include "ops/math/elementwise_op_def.h"
#include "ops/math/math_attrs.h"
#include "ops/math/math_ops.h"
#include "ops/op_call.h"

namespace duet {
namespace {

// Like BroadcastBinaryShape, except that with incompatible_shape_error=false shapes that do not
// broadcast give a scalar (TensorFlow: x == y is then simply false).
absl::Status EqualityShape(ShapeContext& ctx) {
  if (ctx.input_shape(0) == ctx.input_shape(1)) {  // the common case, without building a shape
    ctx.set_output(0, kBool, ctx.input_shape(0));
    return absl::OkStatus();
  }
  absl::StatusOr<Shape> shape = BroadcastShapes(ctx.input_shape(0), ctx.input_shape(1));
  if (shape.ok()) {
    ctx.set_output(0, kBool, *std::move(shape));
  } else if (ctx.attr(EqualityAttrs::kIncompatibleShapeError)) {
    return shape.status();
  } else {
    static const Shape kScalar;
    ctx.set_output(0, kBool, kScalar);
  }
  return absl::OkStatus();
}

const OpDef* RegisterEqualityOp(const char* name, const char* doc) {
  return OpDefBuilder(name)
      .Input("x", "T")
      .Input("y", "T")
      .Output("z", kBool)
      .TypeAttr(EqualityAttrs::kT,
                {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool, kUInt8})
      .BoolAttr(EqualityAttrs::kIncompatibleShapeError, true)
      .Commutative()
      .Doc(doc)
      .SetShapeFn(EqualityShape)
      .Register();
}

const OpDef* const kEqual = RegisterEqualityOp("Equal", "x == y elementwise (bool), broadcasting.");
const OpDef* const kNotEqual =
    RegisterEqualityOp("NotEqual", "x != y elementwise (bool), broadcasting.");
const OpDef* const kLess = RegisterBinaryOp(
    "Less", kArithmeticTypes, "x < y elementwise (bool), broadcasting.", BinaryOpKind::kComparison);
const OpDef* const kLessEqual =
    RegisterBinaryOp("LessEqual", kArithmeticTypes, "x <= y elementwise (bool), broadcasting.",
                     BinaryOpKind::kComparison);
const OpDef* const kGreater =
    RegisterBinaryOp("Greater", kArithmeticTypes, "x > y elementwise (bool), broadcasting.",
                     BinaryOpKind::kComparison);
const OpDef* const kGreaterEqual =
    RegisterBinaryOp("GreaterEqual", kArithmeticTypes, "x >= y elementwise (bool), broadcasting.",
                     BinaryOpKind::kComparison);

const OpDef* RegisterLogicalBinaryOp(const char* name, const char* doc) {
  return OpDefBuilder(name)
      .Input("x", kBool)
      .Input("y", kBool)
      .Output("z", kBool)
      .Commutative()
      .Doc(doc)
      .SetShapeFn(BroadcastBinaryShape)
      .Register();
}

const OpDef* const kLogicalAnd =
    RegisterLogicalBinaryOp("LogicalAnd", "x AND y on bool tensors, broadcasting.");
const OpDef* const kLogicalOr =
    RegisterLogicalBinaryOp("LogicalOr", "x OR y on bool tensors, broadcasting.");
const OpDef* const kLogicalNot = OpDefBuilder("LogicalNot")
                                     .Input("x", kBool)
                                     .Output("y", kBool)
                                     .Doc("NOT x on a bool tensor.")
                                     .SetShapeFn(UnchangedShape)
                                     .Register();

}  // namespace

Tensor equal(const Tensor& x, const Tensor& y, OpSite site) {
  return CallBinaryOp(kEqual, x, y, site);
}

Tensor not_equal(const Tensor& x, const Tensor& y, OpSite site) {
  return CallBinaryOp(kNotEqual, x, y, site);
}

Tensor less(const Tensor& x, const Tensor& y, OpSite site) {
  return CallBinaryOp(kLess, x, y, site);
}

Tensor less_equal(const Tensor& x, const Tensor& y, OpSite site) {
  return CallBinaryOp(kLessEqual, x, y, site);
}

Tensor greater(const Tensor& x, const Tensor& y, OpSite site) {
  return CallBinaryOp(kGreater, x, y, site);
}

Tensor greater_equal(const Tensor& x, const Tensor& y, OpSite site) {
  return CallBinaryOp(kGreaterEqual, x, y, site);
}

Tensor logical_and(const Tensor& x, const Tensor& y, OpSite site) {
  return CallBinaryOp(kLogicalAnd, x, y, site);
}

Tensor logical_or(const Tensor& x, const Tensor& y, OpSite site) {
  return CallBinaryOp(kLogicalOr, x, y, site);
}

Tensor logical_not(const Tensor& x, OpSite site) { return CallUnaryOp(kLogicalNot, x, site); }

}  // namespace duet
