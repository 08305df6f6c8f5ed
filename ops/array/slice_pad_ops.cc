// Cutting out and padding around a block: Slice, Pad.
#include "absl/strings/str_cat.h"
#include "ops/array/array_ops.h"
#include "ops/array/index_tensor.h"
#include "ops/array/shape_fn_util.h"
#include "ops/op_call.h"

namespace duet {
namespace {

absl::Status SliceShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckVectorInput(ctx, 1, "begin"));
  DUET_RETURN_IF_ERROR(CheckVectorInput(ctx, 2, "size"));
  const Shape& in = ctx.input_shape(0);
  const DType dtype = ctx.output(0).dtype;
  const auto begin = ctx.input_ints(1);
  const auto size = ctx.input_ints(2);
  if (in.unknown_rank() || !begin || !size) {
    ctx.set_output(0, dtype, Shape::Unknown(in.unknown_rank() ? -1 : in.rank()));
    return absl::OkStatus();
  }
  if (static_cast<int>(begin->size()) != in.rank() || static_cast<int>(size->size()) != in.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("begin ", IntsString(*begin), " and size ", IntsString(*size),
                     " must both have one entry per dim of shape ", in.str()));
  }
  Shape out;
  for (int d = 0; d < in.rank(); ++d) {
    const int64_t dim = in.dim(d), b = (*begin)[d], s = (*size)[d];
    if (dim < 0) {  // known at run time only
      out.push_back(s);
      continue;
    }
    const bool ok = b >= 0 && b <= dim && (s == -1 || (s >= 0 && s <= dim - b));
    if (!ok) {
      return absl::InvalidArgumentError(
          absl::StrCat("begin ", IntsString(*begin), " and size ", IntsString(*size),
                       " are out of bounds for shape ", in.str(), " at dimension ", d));
    }
    out.push_back(s == -1 ? dim - b : s);
  }
  ctx.set_output(0, dtype, std::move(out));
  return absl::OkStatus();
}

absl::Status PadShape(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const Shape& p = ctx.input_shape(1);
  const DType dtype = ctx.output(0).dtype;
  if (in.unknown_rank()) {
    ctx.set_output(0, dtype, Shape::UnknownRank());
    return absl::OkStatus();
  }
  const bool bad_shape = !p.unknown_rank() && (p.rank() != 2 || p.dim(1) != 2 ||
                                               (p.dim(0) >= 0 && p.dim(0) != in.rank()));
  if (bad_shape) {
    return absl::InvalidArgumentError(absl::StrCat("paddings must have shape (", in.rank(),
                                                   ", 2) for an input of shape ", in.str(),
                                                   ", got ", p.str()));
  }
  const auto pads = ctx.input_ints(1);
  if (!pads) {
    ctx.set_output(0, dtype, Shape::Unknown(in.rank()));
    return absl::OkStatus();
  }
  Shape out;
  for (int d = 0; d < in.rank(); ++d) {
    const int64_t before = (*pads)[2 * d], after = (*pads)[2 * d + 1];
    if (before < 0 || after < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("paddings ", IntsString(*pads), " must be non-negative"));
    }
    out.push_back(in.dim(d) < 0 ? Shape::kUnknownDim : in.dim(d) + before + after);
  }
  ctx.set_output(0, dtype, std::move(out));
  return absl::OkStatus();
}

const OpDef* const kSlice = OpDefBuilder("Slice")
                                .Input("input", "T")
                                .Input("begin", "Index")
                                .Input("size", "Index")
                                .HostInputs({"begin", "size"})
                                .Output("output", "T")
                                .TypeAttr("T", kAllDTypes)
                                .TypeAttr("Index", kIndexTypes)
                                .Doc("The block at `begin` of extent `size` (-1: to the end).")
                                .SetShapeFn(SliceShape)
                                .Register();

const OpDef* const kPad = OpDefBuilder("Pad")
                              .Input("input", "T")
                              .Input("paddings", "Tpaddings")
                              .HostInputs({"paddings"})
                              .Output("output", "T")
                              .TypeAttr("T", kAllDTypes)
                              .TypeAttr("Tpaddings", kIndexTypes, kInt32)
                              .Doc("Pads each dim with zeros before and after.")
                              .SetShapeFn(PadShape)
                              .Register();

}  // namespace

Tensor slice(const Tensor& x, std::vector<int64_t> begin, std::vector<int64_t> size, OpSite site) {
  // begin and size share the Index attr, so both get the wider type either needs.
  Tensor b = IndexTensor(begin), s = IndexTensor(size);
  if (b.dtype() != s.dtype()) b = from_vector(begin), s = from_vector(size);
  OpCall call(kSlice, {x, b, s}, site);
  return RunSingleOutputOp(call);
}

Tensor pad(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& paddings, OpSite site) {
  std::vector<int64_t> flat;
  for (const auto& [before, after] : paddings) {
    flat.push_back(before);
    flat.push_back(after);
  }
  return pad(x, IndexTensor(flat).reshaped(Shape{static_cast<int64_t>(paddings.size()), 2}), site);
}

Tensor pad(const Tensor& x, std::initializer_list<std::pair<int64_t, int64_t>> paddings,
           OpSite site) {
  return pad(x, std::vector<std::pair<int64_t, int64_t>>(paddings), site);
}

Tensor pad(const Tensor& x, const Tensor& paddings, OpSite site) {
  OpCall call(kPad, {x, paddings}, site);
  return RunSingleOutputOp(call);
}

}  // namespace duet
