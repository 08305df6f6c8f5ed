// Sum, Mean, Max, Min, Prod, and All, Any on bools: reductions over a set of axes given as a
// tensor input.
#include "ops/reduction/reduction_ops.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/op_call.h"
#include "ops/reduction/reduction_attrs.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

const std::vector<DType> kReductionTypes = {kFloat32, kFloat64, kInt32, kInt64};

// Which of the input's dims `axes` reduces; errors name bad or repeated axes.
absl::StatusOr<std::vector<bool>> ReducedDims(const std::vector<int64_t>& axes, int rank) {
  std::vector<bool> reduced(rank, false);
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("axis ", a,
                                                     " is out of range for a tensor of rank ", rank,
                                                     " (axes [", absl::StrJoin(axes, ", "), "])"));
    }
    const int64_t d = a < 0 ? a + rank : a;
    if (reduced[d]) {
      return absl::InvalidArgumentError(absl::StrCat("axes [", absl::StrJoin(axes, ", "),
                                                     "] name dimension ", d, " more than once"));
    }
    reduced[d] = true;
  }
  return reduced;
}

// The output shape of any reduction; `keep_dims` is read by the caller through its op's key.
absl::Status ReductionShapeWith(ShapeContext& ctx, bool keep_dims) {
  const Shape& in = ctx.input_shape(0);
  const Shape& axes_shape = ctx.input_shape(1);
  if (!axes_shape.unknown_rank() && axes_shape.rank() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "reduction_indices must be a scalar or 1-D tensor, got shape ", axes_shape.str()));
  }
  const DType dtype = ctx.output(0).dtype;
  const auto axes = ctx.input_ints(1);
  if (in.unknown_rank() || !axes) {
    // With keep_dims the rank is kept, though which dims become 1 is not known.
    const bool known_rank = !in.unknown_rank() && keep_dims;
    ctx.set_output(0, dtype, Shape::Unknown(known_rank ? in.rank() : -1));
    return absl::OkStatus();
  }
  DUET_ASSIGN_OR_RETURN(const std::vector<bool> reduced, ReducedDims(*axes, in.rank()));
  Shape out;
  for (int i = 0; i < in.rank(); ++i) {
    if (!reduced[i]) {
      out.push_back(in.dim(i));
    } else if (keep_dims) {
      out.push_back(1);
    }
  }
  ctx.set_output(0, dtype, std::move(out));
  return absl::OkStatus();
}

absl::Status ReductionShape(ShapeContext& ctx) {
  return ReductionShapeWith(ctx, ctx.attr(ReductionAttrs::kKeepDims));
}

absl::Status BoolReductionShape(ShapeContext& ctx) {
  return ReductionShapeWith(ctx, ctx.attr(BoolReductionAttrs::kKeepDims));
}

// Declares one of the five reductions (they share signature, attrs and shape function).
const OpDef* RegisterReduction(const char* name, const char* doc, std::string tf_difference = "") {
  return OpDefBuilder(name)
      .Input("input", "T")
      .Input("reduction_indices", "Tidx")
      .HostInputs({"reduction_indices"})
      .Output("output", "T")
      .BoolAttr(ReductionAttrs::kKeepDims, false)
      .TypeAttr(ReductionAttrs::kT, kReductionTypes)
      .TypeAttr(ReductionAttrs::kTidx, {kInt32, kInt64}, kInt32)
      .Doc(doc)
      .TfDifference(std::move(tf_difference))
      .SetShapeFn(ReductionShape)
      .Register();
}

const OpDef* const kSum = RegisterReduction("Sum", "Sum over the given axes.");
const OpDef* const kMean = RegisterReduction("Mean", "Mean over the given axes.");
const OpDef* const kMax = RegisterReduction("Max", "Maximum over the given axes.");
const OpDef* const kMin = RegisterReduction("Min", "Minimum over the given axes.");
const OpDef* const kProd = RegisterReduction(
    "Prod", "Product over the given axes.",
    "float32 products accumulate in float64 and round once (Note [float32 products in double] in "
    "kernels/cpu/reduction/reducers.h): closer to the exact product than TensorFlow's float32 "
    "accumulation, which is off by about 1e-5 relative over 300k factors near 1.");

// Declares All or Any: a bool input and output, so only keep_dims and Tidx.
const OpDef* RegisterBoolReduction(const char* name, const char* doc) {
  return OpDefBuilder(name)
      .Input("input", kBool)
      .Input("reduction_indices", "Tidx")
      .HostInputs({"reduction_indices"})
      .Output("output", kBool)
      .BoolAttr(BoolReductionAttrs::kKeepDims, false)
      .TypeAttr(BoolReductionAttrs::kTidx, {kInt32, kInt64}, kInt32)
      .Doc(doc)
      .SetShapeFn(BoolReductionShape)
      .Register();
}

const OpDef* const kAll =
    RegisterBoolReduction("All", "Logical and over the given axes (true over an empty axis).");
const OpDef* const kAny =
    RegisterBoolReduction("Any", "Logical or over the given axes (false over an empty axis).");

Tensor Reduce(const OpDef* op, const Tensor& x, const Axes& axes, bool keep_dims, OpSite site) {
  const int rank = x.defined() && !x.shape().unknown_rank() ? x.rank() : 0;
  OpCall call(op, {x, axes.ToTensor(rank)}, site);
  call.set(ReductionAttrs::kKeepDims, keep_dims);
  return RunSingleOutputOp(call);
}

Tensor BoolReduce(const OpDef* op, const Tensor& x, const Axes& axes, bool keep_dims, OpSite site) {
  const int rank = x.defined() && !x.shape().unknown_rank() ? x.rank() : 0;
  OpCall call(op, {x, axes.ToTensor(rank)}, site);
  call.set(BoolReductionAttrs::kKeepDims, keep_dims);
  return RunSingleOutputOp(call);
}

}  // namespace

Tensor reduce_sum(const Tensor& x, Axes axes, bool keep_dims, OpSite site) {
  return Reduce(kSum, x, axes, keep_dims, site);
}

Tensor reduce_mean(const Tensor& x, Axes axes, bool keep_dims, OpSite site) {
  return Reduce(kMean, x, axes, keep_dims, site);
}

Tensor reduce_max(const Tensor& x, Axes axes, bool keep_dims, OpSite site) {
  return Reduce(kMax, x, axes, keep_dims, site);
}

Tensor reduce_min(const Tensor& x, Axes axes, bool keep_dims, OpSite site) {
  return Reduce(kMin, x, axes, keep_dims, site);
}

Tensor reduce_prod(const Tensor& x, Axes axes, bool keep_dims, OpSite site) {
  return Reduce(kProd, x, axes, keep_dims, site);
}

Tensor reduce_all(const Tensor& x, Axes axes, bool keep_dims, OpSite site) {
  return BoolReduce(kAll, x, axes, keep_dims, site);
}

Tensor reduce_any(const Tensor& x, Axes axes, bool keep_dims, OpSite site) {
  return BoolReduce(kAny, x, axes, keep_dims, site);
}

}  // namespace duet
