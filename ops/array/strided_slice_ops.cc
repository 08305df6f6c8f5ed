// Strided views copied out: StridedSlice, its gradient StridedSliceGrad, and ReverseV2 (a slice
// with stride -1 along some dims). The slice spec is resolved by ops/array/strided_slice_spec.h,
// which the kernels share.
#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "ops/array/array_attrs.h"
#include "ops/array/array_ops.h"
#include "ops/array/index_tensor.h"
#include "ops/array/shape_fn_util.h"
#include "ops/array/strided_slice_spec.h"
#include "ops/op_call.h"

namespace duet {
namespace {

// The number of entries of the slice spec, from the lengths of begin, end and strides (inputs
// first, first + 1 and first + 2); -1 when none is known.
absl::StatusOr<int64_t> SpecLength(const ShapeContext& ctx, int first) {
  int64_t length = -1;
  for (int i = first; i < first + 3; ++i) {
    DUET_RETURN_IF_ERROR(CheckVectorInput(ctx, i, ctx.op().inputs[i].name));
    const Shape& s = ctx.input_shape(i);
    if (s.unknown_rank() || s.dim(0) < 0) continue;
    if (length >= 0 && s.dim(0) != length) {
      return absl::InvalidArgumentError(
          absl::StrCat("begin, end and strides must have the same length, got shapes ",
                       ctx.input_shape(first).str(), ", ", ctx.input_shape(first + 1).str(),
                       " and ", ctx.input_shape(first + 2).str()));
    }
    length = s.dim(0);
  }
  return length;
}

// The spec of the call's begin, end and strides (inputs 1 to 3 of both ops) against `input`.
absl::StatusOr<StridedSliceSpec> Resolve(const ShapeContext& ctx, const Shape& input,
                                         int64_t length) {
  return ResolveStridedSlice(input, length, ctx.input_ints(1), ctx.input_ints(2), ctx.input_ints(3),
                             StridedSliceMasksOf(ctx));
}

absl::Status StridedSliceShape(ShapeContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const int64_t length, SpecLength(ctx, 1));
  const Shape& in = ctx.input_shape(0);
  const DType dtype = ctx.output(0).dtype;
  if (in.unknown_rank() || length < 0) {
    ctx.set_output(0, dtype, Shape::UnknownRank());
    return absl::OkStatus();
  }
  DUET_ASSIGN_OR_RETURN(StridedSliceSpec spec, Resolve(ctx, in, length));
  ctx.set_output(0, dtype, std::move(spec.output));
  return absl::OkStatus();
}

absl::Status StridedSliceGradShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckVectorInput(ctx, 0, "shape"));
  DUET_ASSIGN_OR_RETURN(const int64_t length, SpecLength(ctx, 1));
  const DType dtype = ctx.output(0).dtype;
  DUET_ASSIGN_OR_RETURN(std::optional<Shape> dims, ShapeFromInput(ctx, 0, "shape"));
  if (!dims) {
    ctx.set_output(0, dtype, UnknownShapeFromInput(ctx, 0));
    return absl::OkStatus();
  }
  Shape& in = *dims;
  if (length >= 0) {
    DUET_ASSIGN_OR_RETURN(const StridedSliceSpec spec, Resolve(ctx, in, length));
    const Shape& dy = ctx.input_shape(4);
    if (!dy.unknown_rank() && !dy.IsCompatibleWith(spec.output)) {
      return absl::InvalidArgumentError(absl::StrCat("dy has shape ", dy.str(),
                                                     ", but the slice of a tensor of shape ",
                                                     in.str(), " has shape ", spec.output.str()));
    }
  }
  ctx.set_output(0, dtype, std::move(in));
  return absl::OkStatus();
}

absl::Status ReverseV2Shape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckVectorInput(ctx, 1, "axis"));
  const Shape& in = ctx.input_shape(0);
  const auto axes = ctx.input_ints(1);
  if (axes && !in.unknown_rank()) {
    std::vector<bool> seen(in.rank(), false);
    for (int64_t axis : *axes) {
      DUET_ASSIGN_OR_RETURN(const int d, NormalizeAxis(axis, in.rank()));
      if (seen[d]) {
        return absl::InvalidArgumentError(
            absl::StrCat("axis ", IntsString(*axes), " names dim ", d, " more than once"));
      }
      seen[d] = true;
    }
  }
  ctx.set_output(0, ctx.output(0).dtype, in);
  return absl::OkStatus();
}

// The masks as attrs, declared from their keys at the same positions for both ops.
OpDefBuilder& MaskAttrs(OpDefBuilder& builder) {
  return builder.IntAttr(StridedSliceAttrs::kBeginMask, 0)
      .IntAttr(StridedSliceAttrs::kEndMask, 0)
      .IntAttr(StridedSliceAttrs::kEllipsisMask, 0)
      .IntAttr(StridedSliceAttrs::kNewAxisMask, 0)
      .IntAttr(StridedSliceAttrs::kShrinkAxisMask, 0);
}

const OpDef* const kStridedSlice =
    MaskAttrs(OpDefBuilder("StridedSlice")
                  .Input("input", "T")
                  .Input("begin", "Index")
                  .Input("end", "Index")
                  .Input("strides", "Index")
                  .HostInputs({"begin", "end", "strides"})
                  .Output("output", "T")
                  .TypeAttr(StridedSliceAttrs::kT, kAllDTypes)
                  .TypeAttr(StridedSliceAttrs::kIndex, kIndexTypes))
        .Doc("input[begin:end:strides] with NumPy's basic indexing, as masks select.")
        .SetShapeFn(StridedSliceShape)
        .Register();

const OpDef* const kStridedSliceGrad =
    MaskAttrs(OpDefBuilder("StridedSliceGrad")
                  .Input("shape", "Index")
                  .Input("begin", "Index")
                  .Input("end", "Index")
                  .Input("strides", "Index")
                  .Input("dy", "T")
                  .HostInputs({"shape", "begin", "end", "strides"})
                  .Output("output", "T")
                  .TypeAttr(StridedSliceAttrs::kT, kAllDTypes)
                  .TypeAttr(StridedSliceAttrs::kIndex, kIndexTypes))
        .Doc("Zeros of `shape` with dy where StridedSlice took its output from.")
        .SetShapeFn(StridedSliceGradShape)
        .Register();

absl::Status StridedSliceAssignShape(ShapeContext& ctx) {
  for (int i = 1; i <= 3; ++i) {
    DUET_RETURN_IF_ERROR(CheckVectorInput(ctx, i, ctx.op().inputs[i].name));
  }
  return absl::OkStatus();
}

// The variable's shape is known only when the kernel runs, which checks the slice and the value.
const OpDef* const kResourceStridedSliceAssign =
    MaskAttrs(OpDefBuilder("ResourceStridedSliceAssign")
                  .Input("ref", kResource)
                  .Input("begin", "Index")
                  .Input("end", "Index")
                  .Input("strides", "Index")
                  .Input("value", "T")
                  .HostInputs({"begin", "end", "strides"})
                  .TypeAttr(StridedSliceAttrs::kT, kAllDTypes)
                  .TypeAttr(StridedSliceAttrs::kIndex, kIndexTypes))
        .Stateful()
        .Doc("Assigns value to the elements of the variable ref[begin:end:strides] selects.")
        .SetShapeFn(StridedSliceAssignShape)
        .Register();

// TensorFlow lists Tidx before T; T comes first here because the first type attr picks the kernel
// (OpDef::dispatch_attr), and GraphDefs carry attrs by name, so the order does not show there.
const OpDef* const kReverseV2 = OpDefBuilder("ReverseV2")
                                    .Input("tensor", "T")
                                    .Input("axis", "Tidx")
                                    .HostInputs({"axis"})
                                    .Output("output", "T")
                                    .TypeAttr("T", kAllDTypes)
                                    .TypeAttr("Tidx", kIndexTypes, kInt32)
                                    .Doc("The tensor with the dims listed in `axis` reversed.")
                                    .SetShapeFn(ReverseV2Shape)
                                    .Register();

void SetMasks(OpCall& call, const StridedSliceMasks& masks) {
  call.set(StridedSliceAttrs::kBeginMask, masks.begin_mask);
  call.set(StridedSliceAttrs::kEndMask, masks.end_mask);
  call.set(StridedSliceAttrs::kEllipsisMask, masks.ellipsis_mask);
  call.set(StridedSliceAttrs::kNewAxisMask, masks.new_axis_mask);
  call.set(StridedSliceAttrs::kShrinkAxisMask, masks.shrink_axis_mask);
}

}  // namespace

Tensor strided_slice(const Tensor& x, const Tensor& begin, const Tensor& end, const Tensor& strides,
                     const StridedSliceMasks& masks, OpSite site) {
  OpCall call(kStridedSlice, {x, begin, end, strides}, site);
  SetMasks(call, masks);
  return RunSingleOutputOp(call);
}

Tensor strided_slice(const Tensor& x, const std::vector<int64_t>& begin,
                     const std::vector<int64_t>& end, const std::vector<int64_t>& strides,
                     const StridedSliceMasks& masks, OpSite site) {
  // begin, end and strides share the Index attr, so all get the widest type any needs.
  Tensor b = IndexTensor(begin), e = IndexTensor(end), s = IndexTensor(strides);
  if (b.dtype() != e.dtype() || b.dtype() != s.dtype()) {
    b = from_vector(begin), e = from_vector(end), s = from_vector(strides);
  }
  return strided_slice(x, b, e, s, masks, site);
}

Tensor strided_slice(const Tensor& x, std::initializer_list<int64_t> begin,
                     std::initializer_list<int64_t> end, std::initializer_list<int64_t> strides,
                     const StridedSliceMasks& masks, OpSite site) {
  return strided_slice(x, std::vector<int64_t>(begin), std::vector<int64_t>(end),
                       std::vector<int64_t>(strides), masks, site);
}

Tensor strided_slice_grad(const Tensor& shape, const Tensor& begin, const Tensor& end,
                          const Tensor& strides, const Tensor& dy, const StridedSliceMasks& masks,
                          OpSite site) {
  OpCall call(kStridedSliceGrad, {shape, begin, end, strides, dy}, site);
  SetMasks(call, masks);
  return RunSingleOutputOp(call);
}

void resource_strided_slice_assign(const Tensor& ref, const Tensor& begin, const Tensor& end,
                                   const Tensor& strides, const Tensor& value,
                                   const StridedSliceMasks& masks, OpSite site) {
  OpCall call(kResourceStridedSliceAssign, {ref, begin, end, strides, value}, site);
  SetMasks(call, masks);
  RunOp(call);
}

Tensor reverse(const Tensor& x, const Tensor& axes, OpSite site) {
  OpCall call(kReverseV2, {x, axes}, site);
  return RunSingleOutputOp(call);
}

Tensor reverse(const Tensor& x, const std::vector<int64_t>& axes, OpSite site) {
  return reverse(x, IndexTensor(axes), site);
}

Tensor reverse(const Tensor& x, std::initializer_list<int64_t> axes, OpSite site) {
  return reverse(x, IndexTensor(std::vector<int64_t>(axes)), site);
}

}  // namespace duet
