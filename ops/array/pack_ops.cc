// Stacking along a new axis and unstacking along an existing one: Pack and Unpack.
#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "ops/array/array_attrs.h"
#include "ops/array/array_ops.h"
#include "ops/array/shape_fn_util.h"
#include "ops/op_call.h"

namespace duet {
namespace {

// The axis attr of Pack (of a rank+1 output) or Unpack (of a rank `rank` value), in [0, rank).
absl::StatusOr<int> AttrAxis(int64_t axis, int rank, absl::string_view of) {
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(absl::StrCat("axis ", axis, " is out of range for ", of,
                                                   " of rank ", rank, " (allowed [", -rank, ", ",
                                                   rank, "))"));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

absl::Status PackShape(ShapeContext& ctx) {
  const int n = ctx.num_inputs();
  const DType dtype = ctx.output(0).dtype;
  // The values' common shape: every value's dims merged, unknown dims filled from the others.
  Shape common = Shape::UnknownRank();
  for (int i = 0; i < n; ++i) {
    const Shape& s = ctx.input_shape(i);
    if (!common.IsCompatibleWith(s)) {
      return absl::InvalidArgumentError(
          absl::StrCat("values[", i, "] has shape ", s.str(), " but values[0] has shape ",
                       ctx.input_shape(0).str(), "; all values must have the same shape"));
    }
    common = common.Merge(s);
  }
  if (common.unknown_rank()) {
    ctx.set_output(0, dtype, Shape::UnknownRank());
    return absl::OkStatus();
  }
  DUET_ASSIGN_OR_RETURN(const int axis, AttrAxis(ctx.attr(PackAttrs::kAxis), common.rank() + 1,
                                                 "the stacked output"));
  Shape out;
  for (int d = 0; d <= common.rank(); ++d) {
    if (d == axis) out.push_back(n);
    if (d < common.rank()) out.push_back(common.dim(d));
  }
  ctx.set_output(0, dtype, std::move(out));
  return absl::OkStatus();
}

// Gives every output `shape`.
void SetAllOutputs(ShapeContext& ctx, const Shape& shape) {
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, ctx.output(i).dtype, shape);
}

absl::Status UnpackShape(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  if (in.unknown_rank()) {
    SetAllOutputs(ctx, Shape::UnknownRank());
    return absl::OkStatus();
  }
  if (in.rank() == 0) return absl::InvalidArgumentError("cannot unstack a scalar");
  DUET_ASSIGN_OR_RETURN(const int axis,
                        AttrAxis(ctx.attr(UnpackAttrs::kAxis), in.rank(), "a value"));
  const int64_t num = ctx.attr(UnpackAttrs::kNum);
  if (in.dim(axis) >= 0 && in.dim(axis) != num) {
    return absl::InvalidArgumentError(absl::StrCat("dimension ", axis, " of shape ", in.str(),
                                                   " has size ", in.dim(axis), " but num is ",
                                                   num));
  }
  Shape piece;
  for (int d = 0; d < in.rank(); ++d) {
    if (d != axis) piece.push_back(in.dim(d));
  }
  SetAllOutputs(ctx, piece);
  return absl::OkStatus();
}

const OpDef* const kPack = OpDefBuilder("Pack")
                               .InputList("values", "T", "N")
                               .Output("output", "T")
                               .IntAttr(PackAttrs::kN, {}, 1)
                               .TypeAttr(PackAttrs::kT, kAllDTypesAndString)
                               .IntAttr(PackAttrs::kAxis, 0)
                               .Doc("Stacks N same-shape tensors along a new axis.")
                               .SetShapeFn(PackShape)
                               .Register();

const OpDef* const kUnpack = OpDefBuilder("Unpack")
                                 .Input("value", "T")
                                 .OutputList("output", "T", "num")
                                 .IntAttr(UnpackAttrs::kNum, {}, 0)
                                 .TypeAttr(UnpackAttrs::kT, kAllDTypes)
                                 .IntAttr(UnpackAttrs::kAxis, 0)
                                 .Doc("Unstacks a tensor into the slices along an axis.")
                                 .SetShapeFn(UnpackShape)
                                 .Register();

}  // namespace

Tensor stack(const std::vector<Tensor>& values, int64_t axis, OpSite site) {
  OpCall call(kPack, TensorList(values.begin(), values.end()), site);
  call.set(PackAttrs::kAxis, axis);
  return RunSingleOutputOp(call);
}

std::vector<Tensor> unstack(const Tensor& x, int64_t axis, OpSite site) {
  OpCall call(kUnpack, {x}, site);
  // num is the size of the axis; where the axis is invalid the shape function reports it.
  const Shape& shape = x.shape();
  int64_t num = 0;
  if (!shape.unknown_rank() && axis >= -shape.rank() && axis < shape.rank()) {
    num = shape.dim(static_cast<int>(axis < 0 ? axis + shape.rank() : axis));
  } else if (shape.unknown_rank()) {
    num = Shape::kUnknownDim;
  }
  if (num < 0) {
    throw Error(absl::InvalidArgumentError(absl::StrCat("Unpack: unstack needs the size of axis ",
                                                        axis, " but x has shape ", shape.str(),
                                                        " (at ", site.str(), ")")));
  }
  call.set(UnpackAttrs::kNum, num);
  call.set(UnpackAttrs::kAxis, axis);
  OutputList out = RunOp(call);
  return std::vector<Tensor>(out.begin(), out.end());
}

}  // namespace duet
