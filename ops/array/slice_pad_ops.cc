// Cutting out and padding around a block: Slice, Pad, PadV2, MirrorPad and MirrorPadGrad.
#include <optional>

#include "absl/strings/str_cat.h"
#include "ops/array/array_attrs.h"
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

// Whether a padding op's output dims gain their paddings (Pad, PadV2, MirrorPad) or lose them
// (MirrorPadGrad).
enum class PadDirection { kAdd, kRemove };

// Sets output 0 to input 0's shape with input 1's paddings added or removed in each dim. `known`
// (if given) receives that shape when the rank and the paddings are known.
absl::Status SetPaddedShape(ShapeContext& ctx, PadDirection direction,
                            std::optional<Shape>* known = nullptr) {
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
    if (direction == PadDirection::kRemove && in.dim(d) >= 0 && in.dim(d) < before + after) {
      return absl::InvalidArgumentError(absl::StrCat("paddings ", IntsString(*pads),
                                                     " remove more than dimension ", d,
                                                     " of shape ", in.str(), " holds"));
    }
    const int64_t change = direction == PadDirection::kAdd ? before + after : -(before + after);
    out.push_back(in.dim(d) < 0 ? Shape::kUnknownDim : in.dim(d) + change);
  }
  if (known != nullptr) *known = out;
  ctx.set_output(0, dtype, std::move(out));
  return absl::OkStatus();
}

absl::Status PadShape(ShapeContext& ctx) { return SetPaddedShape(ctx, PadDirection::kAdd); }

absl::Status PadV2Shape(ShapeContext& ctx) {
  const Shape& c = ctx.input_shape(2);
  if (!c.unknown_rank() && c.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("constant_values must be a scalar, got shape ", c.str()));
  }
  return PadShape(ctx);
}

// TensorFlow's limits: a REFLECT pad leaves out the edge, so it may take at most dim - 1
// elements; SYMMETRIC repeats the edge, so at most dim. `dim` is the unpadded extent.
absl::Status CheckMirrorPaddings(const ShapeContext& ctx, const Shape& unpadded,
                                 absl::Span<const int64_t> pads) {
  const bool reflect = ctx.attr(MirrorPadAttrs::kMode) == "REFLECT";
  for (int d = 0; d < unpadded.rank(); ++d) {
    const int64_t dim = unpadded.dim(d), before = pads[2 * d], after = pads[2 * d + 1];
    if (dim < 0) continue;
    const int64_t limit = reflect ? dim - 1 : dim;
    if (before > limit || after > limit) {
      return absl::InvalidArgumentError(absl::StrCat(
          "paddings ", IntsString(pads), " are too large at dimension ", d, " for mode ",
          ctx.attr(MirrorPadAttrs::kMode), ": each side may add at most ", limit,
          reflect ? " (the dim minus one)" : " (the dim)", " elements to dim ", dim, " of shape ",
          unpadded.str()));
    }
  }
  return absl::OkStatus();
}

absl::Status MirrorPadShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(PadShape(ctx));
  const auto pads = ctx.input_ints(1);
  if (ctx.input_shape(0).unknown_rank() || !pads) return absl::OkStatus();
  return CheckMirrorPaddings(ctx, ctx.input_shape(0), *pads);
}

// The inverse of MirrorPad's shape: each dim loses its paddings, within MirrorPad's limits.
absl::Status MirrorPadGradShape(ShapeContext& ctx) {
  std::optional<Shape> unpadded;
  DUET_RETURN_IF_ERROR(SetPaddedShape(ctx, PadDirection::kRemove, &unpadded));
  if (!unpadded) return absl::OkStatus();
  return CheckMirrorPaddings(ctx, *unpadded, *ctx.input_ints(1));
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

const OpDef* const kPadV2 =
    OpDefBuilder("PadV2")
        .Input("input", "T")
        .Input("paddings", "Tpaddings")
        .Input("constant_values", "T")
        .HostInputs({"paddings"})
        .Output("output", "T")
        .TypeAttr("T", kAllDTypes)
        .TypeAttr("Tpaddings", kIndexTypes, kInt32)
        .Doc("Pads each dim with the scalar constant_values before and after.")
        .SetShapeFn(PadV2Shape)
        .Register();

const OpDef* const kMirrorPad =
    OpDefBuilder("MirrorPad")
        .Input("input", "T")
        .Input("paddings", "Tpaddings")
        .HostInputs({"paddings"})
        .Output("output", "T")
        .TypeAttr(MirrorPadAttrs::kT, kAllDTypes)
        .TypeAttr(MirrorPadAttrs::kTpaddings, kIndexTypes, kInt32)
        .StringAttr(MirrorPadAttrs::kMode, {}, {"REFLECT", "SYMMETRIC"})
        .Doc(
            "Pads each dim with its mirror image: REFLECT leaves out the edge, SYMMETRIC repeats "
            "it.")
        .SetShapeFn(MirrorPadShape)
        .Register();

// Sums are needed, so no bool.
const OpDef* const kMirrorPadGrad =
    OpDefBuilder("MirrorPadGrad")
        .Input("input", "T")
        .Input("paddings", "Tpaddings")
        .HostInputs({"paddings"})
        .Output("output", "T")
        .TypeAttr(MirrorPadAttrs::kT, kRealNumberTypes)
        .TypeAttr(MirrorPadAttrs::kTpaddings, kIndexTypes, kInt32)
        .StringAttr(MirrorPadAttrs::kMode, {}, {"REFLECT", "SYMMETRIC"})
        .Doc("The gradient of MirrorPad: each padded element added back onto the one it mirrors.")
        .SetShapeFn(MirrorPadGradShape)
        .Register();

Tensor PairsTensor(const std::vector<std::pair<int64_t, int64_t>>& paddings) {
  std::vector<int64_t> flat;
  for (const auto& [before, after] : paddings) {
    flat.push_back(before);
    flat.push_back(after);
  }
  return IndexTensor(flat).reshaped(Shape{static_cast<int64_t>(paddings.size()), 2});
}

}  // namespace

Tensor slice(const Tensor& x, std::vector<int64_t> begin, std::vector<int64_t> size, OpSite site) {
  // begin and size share the Index attr, so both get the wider type either needs.
  Tensor b = IndexTensor(begin), s = IndexTensor(size);
  if (b.dtype() != s.dtype()) b = from_vector(begin), s = from_vector(size);
  OpCall call(kSlice, {x, b, s}, site);
  return RunSingleOutputOp(call);
}

Tensor pad(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& paddings, OpSite site) {
  return pad(x, PairsTensor(paddings), site);
}

Tensor pad(const Tensor& x, std::initializer_list<std::pair<int64_t, int64_t>> paddings,
           OpSite site) {
  return pad(x, std::vector<std::pair<int64_t, int64_t>>(paddings), site);
}

Tensor pad(const Tensor& x, const Tensor& paddings, OpSite site) {
  OpCall call(kPad, {x, paddings}, site);
  return RunSingleOutputOp(call);
}

Tensor pad(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& paddings,
           const Tensor& constant_values, OpSite site) {
  return pad(x, PairsTensor(paddings), constant_values, site);
}

Tensor pad(const Tensor& x, std::initializer_list<std::pair<int64_t, int64_t>> paddings,
           const Tensor& constant_values, OpSite site) {
  return pad(x, PairsTensor(paddings), constant_values, site);
}

Tensor pad(const Tensor& x, const Tensor& paddings, const Tensor& constant_values, OpSite site) {
  OpCall call(kPadV2, {x, paddings, constant_values}, site);
  return RunSingleOutputOp(call);
}

Tensor mirror_pad(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& paddings,
                  std::string mode, OpSite site) {
  return mirror_pad(x, PairsTensor(paddings), std::move(mode), site);
}

Tensor mirror_pad(const Tensor& x, std::initializer_list<std::pair<int64_t, int64_t>> paddings,
                  std::string mode, OpSite site) {
  return mirror_pad(x, PairsTensor(paddings), std::move(mode), site);
}

Tensor mirror_pad(const Tensor& x, const Tensor& paddings, std::string mode, OpSite site) {
  OpCall call(kMirrorPad, {x, paddings}, site);
  call.set(MirrorPadAttrs::kMode, std::move(mode));
  return RunSingleOutputOp(call);
}

Tensor mirror_pad_grad(const Tensor& dy, const Tensor& paddings, std::string mode, OpSite site) {
  OpCall call(kMirrorPadGrad, {dy, paddings}, site);
  call.set(MirrorPadAttrs::kMode, std::move(mode));
  return RunSingleOutputOp(call);
}

}  // namespace duet
