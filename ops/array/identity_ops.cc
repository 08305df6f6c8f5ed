// Ops that pass their input on: IdentityN (several at once), Snapshot (as a copy), EnsureShape
// (after a shape check) and PlaceholderWithDefault (unless a feed replaces it).
#include "absl/strings/str_cat.h"
#include "ops/array/array_attrs.h"
#include "ops/array/array_ops.h"
#include "ops/array/shape_fn_util.h"
#include "ops/common_shape_fns.h"
#include "ops/op_call.h"

namespace duet {
namespace {

absl::Status IdentityNShape(ShapeContext& ctx) {
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    ctx.set_output(i, ctx.input_dtype(i), ctx.input_shape(i));
  }
  return absl::OkStatus();
}

absl::Status EnsureShapeShape(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const Shape& expected = ctx.attr(EnsureShapeAttrs::kShape);
  if (!in.IsCompatibleWith(expected)) {
    return absl::InvalidArgumentError(absl::StrCat("the input has shape ", in.str(),
                                                   ", which is not compatible with the expected "
                                                   "shape ",
                                                   expected.str()));
  }
  ctx.set_output(0, ctx.output(0).dtype, in.unknown_rank() ? expected : in.Merge(expected));
  return absl::OkStatus();
}

absl::Status PlaceholderWithDefaultShape(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const Shape& shape = ctx.attr(PlaceholderAttrs::kShape);
  if (!in.IsCompatibleWith(shape)) {
    return absl::InvalidArgumentError(absl::StrCat("the default input has shape ", in.str(),
                                                   ", which is not compatible with shape ",
                                                   shape.str()));
  }
  // A feed may replace the input, so only the declared shape holds for every value.
  ctx.set_output(0, ctx.attr(PlaceholderAttrs::kDtype), shape);
  return absl::OkStatus();
}

const OpDef* const kIdentityN = OpDefBuilder("IdentityN")
                                    .InputTypeList("input", "T")
                                    .OutputTypeList("output", "T")
                                    .TypeListAttr(IdentityNAttrs::kT)
                                    .Doc("The inputs themselves (views), passed on together.")
                                    .SetShapeFn(IdentityNShape)
                                    .Register();

const OpDef* const kSnapshot = OpDefBuilder("Snapshot")
                                   .Input("input", "T")
                                   .Output("output", "T")
                                   .TypeAttr("T", kAllDTypes)
                                   .Doc("A copy of the input in a buffer of its own.")
                                   .SetShapeFn(UnchangedShape)
                                   .Register();

const OpDef* const kEnsureShape =
    OpDefBuilder("EnsureShape")
        .Input("input", "T")
        .Output("output", "T")
        .ShapeAttr(EnsureShapeAttrs::kShape)
        .TypeAttr(EnsureShapeAttrs::kT, kAllDTypesAndString)
        .Doc("The input, after checking that its shape is compatible with the shape attr.")
        .SetShapeFn(EnsureShapeShape)
        .Register();

const OpDef* const kPlaceholderWithDefault =
    OpDefBuilder("PlaceholderWithDefault")
        .Input("input", "dtype")
        .Output("output", "dtype")
        .TypeAttr(PlaceholderAttrs::kDtype, kAllDTypesAndString)
        .ShapeAttr(PlaceholderAttrs::kShape)
        .Doc("The input, unless Session::run feeds another value of the given shape.")
        .TfDifference(
            "A default whose shape is incompatible with the shape attr is an error "
            "also when only the run knows it (TensorFlow checks it only while building "
            "the graph, where the default's shape is known).")
        .SetShapeFn(PlaceholderWithDefaultShape)
        .Register();

}  // namespace

std::vector<Tensor> identity_n(const std::vector<Tensor>& values, OpSite site) {
  OpCall call(kIdentityN, TensorList(values.begin(), values.end()), site);
  OutputList out = RunOp(call);
  return std::vector<Tensor>(out.begin(), out.end());
}

Tensor snapshot(const Tensor& x, OpSite site) {
  OpCall call(kSnapshot, {x}, site);
  return RunSingleOutputOp(call);
}

Tensor ensure_shape(const Tensor& x, const Shape& shape, OpSite site) {
  OpCall call(kEnsureShape, {x}, site);
  call.set(EnsureShapeAttrs::kShape, shape);
  return RunSingleOutputOp(call);
}

Tensor placeholder_with_default(const Tensor& input, const Shape& shape, OpSite site) {
  OpCall call(kPlaceholderWithDefault, {input}, site);
  call.set(PlaceholderAttrs::kShape, shape);
  return RunSingleOutputOp(call);
}

}  // namespace duet
