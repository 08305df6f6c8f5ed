// Joining and splitting along an axis: ConcatV2, Split, SplitV.
#include "absl/strings/str_cat.h"
#include "ops/array/array_attrs.h"
#include "ops/array/array_ops.h"
#include "ops/array/index_tensor.h"
#include "ops/array/shape_fn_util.h"
#include "ops/op_call.h"

namespace duet {
namespace {

// Checks that values[i] agrees with values[0] on everything but the concat axis.
absl::Status CheckConcatOperand(const ShapeContext& ctx, int i, int axis, Shape& out) {
  const Shape& first = ctx.input_shape(0);
  const Shape& s = ctx.input_shape(i);
  if (s.rank() != first.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("values[", i, "] has rank ", s.rank(), " but values[0] has rank ",
                     first.rank(), " (shapes ", s.str(), " and ", first.str(), ")"));
  }
  for (int d = 0; d < s.rank(); ++d) {
    if (d == axis) continue;
    if (s.dim(d) >= 0 && out.dim(d) >= 0 && s.dim(d) != out.dim(d)) {
      return absl::InvalidArgumentError(
          absl::StrCat("dimension ", d, " of values[", i, "] (shape ", s.str(), ") is ", s.dim(d),
                       " but values[0] (shape ", first.str(), ") has ", out.dim(d),
                       "; all dims except the concat axis ", axis, " must match"));
    }
    if (out.dim(d) < 0) out.set_dim(d, s.dim(d));
  }
  const int64_t a = out.dim(axis), b = s.dim(axis);
  out.set_dim(axis, a < 0 || b < 0 ? Shape::kUnknownDim : a + b);
  return absl::OkStatus();
}

absl::Status ConcatShape(ShapeContext& ctx) {
  const int n = ctx.num_inputs() - 1;
  DUET_RETURN_IF_ERROR(CheckScalarInput(ctx, n, "axis"));
  const DType dtype = ctx.output(0).dtype;
  for (int i = 0; i < n; ++i) {
    if (ctx.input_shape(i).unknown_rank()) {
      ctx.set_output(0, dtype, Shape::UnknownRank());
      return absl::OkStatus();
    }
  }
  const Shape& first = ctx.input_shape(0);
  if (first.rank() == 0) return absl::InvalidArgumentError("cannot concatenate scalars");
  const auto axis_value = ctx.input_ints(n);
  if (!axis_value) {
    ctx.set_output(0, dtype, Shape::Unknown(first.rank()));
    return absl::OkStatus();
  }
  DUET_ASSIGN_OR_RETURN(const int axis, NormalizeAxis((*axis_value)[0], first.rank()));
  Shape out = first;
  for (int i = 1; i < n; ++i) DUET_RETURN_IF_ERROR(CheckConcatOperand(ctx, i, axis, out));
  ctx.set_output(0, dtype, std::move(out));
  return absl::OkStatus();
}

// The sizes SplitV cuts `dim` into: `sizes` with its -1 resolved. `in` is only for messages.
absl::StatusOr<std::vector<int64_t>> ResolveSplitSizes(std::vector<int64_t> sizes, int64_t dim,
                                                       int axis, const Shape& in) {
  int64_t known = 0;
  int unknown_at = -1;
  for (int i = 0; i < static_cast<int>(sizes.size()); ++i) {
    if (sizes[i] == -1 && unknown_at < 0) {
      unknown_at = i;
    } else if (sizes[i] < 0) {
      return absl::InvalidArgumentError(absl::StrCat("size_splits ", IntsString(sizes),
                                                     " may hold one -1 and otherwise sizes >= 0"));
    } else {
      known += sizes[i];
    }
  }
  if (dim < 0) return sizes;  // checked at run time
  if (known > dim || (unknown_at < 0 && known != dim)) {
    return absl::InvalidArgumentError(absl::StrCat("size_splits ", IntsString(sizes), " sum to ",
                                                   known, " but dimension ", axis, " of shape ",
                                                   in.str(), " has size ", dim));
  }
  if (unknown_at >= 0) sizes[unknown_at] = dim - known;
  return sizes;
}

// Sets the outputs of a split of `in` along `axis` into pieces of `sizes`.
void SetSplitOutputs(ShapeContext& ctx, const Shape& in, int axis,
                     const std::vector<int64_t>& sizes) {
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    Shape s = in;
    s.set_dim(axis, sizes[i]);
    ctx.set_output(i, ctx.output(i).dtype, std::move(s));
  }
}

// Gives every output an unknown shape of `rank` (graph inputs whose values are not known).
void SetUnknownOutputs(ShapeContext& ctx, int rank) {
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    ctx.set_output(i, ctx.output(i).dtype, Shape::Unknown(rank));
  }
}

absl::Status SplitShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckScalarInput(ctx, 0, "split_dim"));
  const Shape& in = ctx.input_shape(1);
  const auto axis_value = ctx.input_ints(0);
  if (in.unknown_rank() || !axis_value) {
    SetUnknownOutputs(ctx, in.unknown_rank() ? -1 : in.rank());
    return absl::OkStatus();
  }
  if (in.rank() == 0) return absl::InvalidArgumentError("cannot split a scalar");
  DUET_ASSIGN_OR_RETURN(const int axis, NormalizeAxis((*axis_value)[0], in.rank()));
  const int64_t num = ctx.attr(SplitAttrs::kNumSplit);
  const int64_t dim = in.dim(axis);
  if (dim >= 0 && dim % num != 0) {
    return absl::InvalidArgumentError(absl::StrCat("dimension ", axis, " of shape ", in.str(),
                                                   " has size ", dim, ", which num_split ", num,
                                                   " does not divide"));
  }
  SetSplitOutputs(ctx, in, axis,
                  std::vector<int64_t>(num, dim < 0 ? Shape::kUnknownDim : dim / num));
  return absl::OkStatus();
}

absl::Status SplitVShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckVectorInput(ctx, 1, "size_splits"));
  DUET_RETURN_IF_ERROR(CheckScalarInput(ctx, 2, "split_dim"));
  const Shape& in = ctx.input_shape(0);
  const auto sizes = ctx.input_ints(1);
  const auto axis_value = ctx.input_ints(2);
  if (in.unknown_rank() || !sizes || !axis_value) {
    SetUnknownOutputs(ctx, in.unknown_rank() ? -1 : in.rank());
    return absl::OkStatus();
  }
  if (in.rank() == 0) return absl::InvalidArgumentError("cannot split a scalar");
  DUET_ASSIGN_OR_RETURN(const int axis, NormalizeAxis((*axis_value)[0], in.rank()));
  if (static_cast<int64_t>(sizes->size()) != ctx.num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat("size_splits ", IntsString(*sizes), " has ",
                                                   sizes->size(), " entries but num_split is ",
                                                   ctx.num_outputs()));
  }
  DUET_ASSIGN_OR_RETURN(std::vector<int64_t> resolved,
                        ResolveSplitSizes(*sizes, in.dim(axis), axis, in));
  SetSplitOutputs(ctx, in, axis, resolved);
  return absl::OkStatus();
}

const OpDef* const kConcatV2 = OpDefBuilder("ConcatV2")
                                   .InputList("values", "T", "N")
                                   .Input("axis", "Tidx")
                                   .HostInputs({"axis"})
                                   .Output("output", "T")
                                   .IntAttr(ConcatAttrs::kN, {}, 1)
                                   .TypeAttr(ConcatAttrs::kT, kAllDTypesAndString)
                                   .TypeAttr(ConcatAttrs::kTidx, kIndexTypes, kInt32)
                                   .Doc("Joins tensors along an axis.")
                                   .SetShapeFn(ConcatShape)
                                   .Register();

const OpDef* const kSplit = OpDefBuilder("Split")
                                .Input("split_dim", kInt32)
                                .HostInputs({"split_dim"})
                                .Input("value", "T")
                                .OutputList("output", "T", "num_split")
                                .IntAttr(SplitAttrs::kNumSplit, {}, 1)
                                .TypeAttr(SplitAttrs::kT, kAllDTypes)
                                .Doc("Splits a tensor into num_split equal pieces along an axis.")
                                .SetShapeFn(SplitShape)
                                .Register();

const OpDef* const kSplitV = OpDefBuilder("SplitV")
                                 .Input("value", "T")
                                 .Input("size_splits", "Tlen")
                                 .Input("split_dim", kInt32)
                                 .HostInputs({"size_splits", "split_dim"})
                                 .OutputList("output", "T", "num_split")
                                 .IntAttr(SplitAttrs::kNumSplit, {}, 1)
                                 .TypeAttr(SplitAttrs::kT, kAllDTypes)
                                 .TypeAttr(SplitVAttrs::kTlen, kIndexTypes, kInt64)
                                 .Doc("Splits a tensor into pieces of given sizes along an axis.")
                                 .SetShapeFn(SplitVShape)
                                 .Register();

// The split_dim operand: Split and SplitV take it as int32 only.
Tensor SplitDim(int64_t axis) { return constant(static_cast<int32_t>(axis)); }

}  // namespace

Tensor concat(const std::vector<Tensor>& values, int64_t axis, OpSite site) {
  TensorList inputs(values.begin(), values.end());
  inputs.push_back(IndexScalar(axis));
  OpCall call(kConcatV2, std::move(inputs), site);
  call.set(ConcatAttrs::kN, static_cast<int64_t>(values.size()));
  return RunSingleOutputOp(call);
}

std::vector<Tensor> split(const Tensor& x, int64_t num_splits, int64_t axis, OpSite site) {
  OpCall call(kSplit, {SplitDim(axis), x}, site);
  call.set(SplitAttrs::kNumSplit, num_splits);
  OutputList out = RunOp(call);
  return std::vector<Tensor>(out.begin(), out.end());
}

std::vector<Tensor> split(const Tensor& x, std::vector<int64_t> sizes, int64_t axis, OpSite site) {
  const int64_t num = static_cast<int64_t>(sizes.size());
  OpCall call(kSplitV, {x, from_vector(sizes), SplitDim(axis)}, site);
  call.set(SplitAttrs::kNumSplit, num);
  OutputList out = RunOp(call);
  return std::vector<Tensor>(out.begin(), out.end());
}

}  // namespace duet
