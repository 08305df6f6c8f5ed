#include "ops/nn/window_shape.h"

#include "absl/strings/str_cat.h"
#include "ops/attr_value.h"
#include "ops/channels_first.h"
#include "ops/nn/nn_attrs.h"

namespace duet {

namespace {

constexpr absl::string_view kSpatialNames[] = {"depth", "height", "width"};

// The name of spatial dim `d` of a rank-`rank` window.
absl::string_view SpatialName(int rank, int d) { return kSpatialNames[3 - rank + d]; }

}  // namespace

std::vector<int64_t> ExpandNhwcAttr(std::vector<int64_t> values, int rank) {
  const size_t n = static_cast<size_t>(rank);
  if (values.size() != 1 && values.size() != n) return values;
  std::vector<int64_t> expanded(n + 2, 1);
  for (size_t d = 0; d < n; ++d) expanded[1 + d] = values[values.size() == 1 ? 0 : d];
  return expanded;
}

absl::Status CheckNhwcAttr(absl::string_view name, const std::vector<int64_t>& values, int rank) {
  bool ok =
      values.size() == static_cast<size_t>(rank + 2) && values.front() == 1 && values.back() == 1;
  for (int d = 0; ok && d < rank; ++d) ok = values[1 + d] >= 1;
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(
      rank == 2 ? absl::StrCat(name,
                               " must be [1, height, width, 1] with height and width >= 1 (NHWC), "
                               "got ",
                               AttrValueString(values))
                : absl::StrCat(name,
                               " must be [1, depth, height, width, 1] with depth, height and width "
                               ">= 1 (NDHWC), got ",
                               AttrValueString(values)));
}

absl::string_view NhwcDimNames(int rank) {
  return rank == 2 ? "batch, height, width, channels" : "batch, depth, height, width, channels";
}

absl::Status SetExplicitPaddings(const std::vector<int64_t>& explicit_paddings, WindowSpec& spec) {
  if (spec.padding != "EXPLICIT") {
    if (explicit_paddings.empty()) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("explicit_paddings must be empty unless padding is EXPLICIT, got ",
                     AttrValueString(explicit_paddings), " with padding ", spec.padding));
  }
  const auto& p = explicit_paddings;
  bool ok = p.size() == 8 && p[0] == 0 && p[1] == 0 && p[6] == 0 && p[7] == 0;
  for (int64_t v : p) ok = ok && v >= 0;
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "explicit_paddings must be 8 non-negative values [0, 0, top, bottom, left, right, 0, 0] "
        "with padding EXPLICIT, got ",
        AttrValueString(explicit_paddings)));
  }
  spec.pad_before[0] = p[2];
  spec.pad_after[0] = p[3];
  spec.pad_before[1] = p[4];
  spec.pad_after[1] = p[5];
  return absl::OkStatus();
}

absl::StatusOr<int64_t> WindowOutputSize(int64_t in, const WindowSpec& spec, int dim,
                                         absl::string_view dim_name) {
  if (in < 0) return Shape::kUnknownDim;
  const int64_t stride = spec.stride[dim];
  const int64_t effective = (spec.window[dim] - 1) * spec.dilation[dim] + 1;
  if (spec.padding == "SAME") return (in + stride - 1) / stride;
  const int64_t padded = in + spec.pad_before[dim] + spec.pad_after[dim];
  // TensorFlow's rule, with C++'s division toward zero: an input up to stride - 1 smaller than
  // the window gives an empty output, not an error.
  const int64_t out = (padded - effective + stride) / stride;
  if (out < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", dim_name, " ", in, (padded != in ? absl::StrCat(" (", padded, " padded)") : ""),
        " is smaller than the ", (spec.dilation[dim] > 1 ? "dilated " : ""), "window ", dim_name,
        " ", effective, " with ", spec.padding, " padding"));
  }
  return out;
}

absl::StatusOr<Shape> NhwcWindowOutputShape(const Shape& input, const WindowSpec& spec,
                                            int64_t out_channels) {
  const int rank = spec.rank;
  std::vector<int64_t> dims(rank + 2, Shape::kUnknownDim);
  dims.back() = out_channels;
  if (input.unknown_rank()) return Shape(absl::MakeConstSpan(dims));
  if (input.rank() != rank + 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input must be ", rank + 2, "-D (", NhwcDimNames(rank), "), got shape ", input.str()));
  }
  dims[0] = input[0];
  for (int d = 0; d < rank; ++d) {
    DUET_ASSIGN_OR_RETURN(dims[1 + d],
                          WindowOutputSize(input[1 + d], spec, d, SpatialName(rank, d)));
  }
  return Shape(absl::MakeConstSpan(dims));
}

void SetPoolWindowAttrs(OpCall& call, std::vector<int64_t> ksize, std::vector<int64_t> strides,
                        std::string padding, int rank) {
  call.set(PoolAttrs::kKsize, ExpandNhwcAttr(std::move(ksize), rank));
  call.set(PoolAttrs::kStrides, ExpandNhwcAttr(std::move(strides), rank));
  call.set(PoolAttrs::kPadding, std::move(padding));
}

Tensor RunPoolOp(const OpDef* op, TensorList inputs, std::vector<int64_t> ksize,
                 std::vector<int64_t> strides, std::string padding, int rank, OpSite site) {
  OpCall call(op, std::move(inputs), site);
  SetPoolWindowAttrs(call, std::move(ksize), std::move(strides), std::move(padding), rank);
  return RunSingleOutputOp(call);
}

std::vector<int64_t> ChannelsLastWindow(std::vector<int64_t> values, DataFormat format) {
  if (format == DataFormat::kNCHW && values.size() >= 3) return ChannelsLastDims(values);
  return values;
}

void UseDataFormat(OpCall& call, DataFormat format) {
  if (format == DataFormat::kNCHW) call.attrs = ChannelsFirstAttrs(*call.op, call.attrs);
}

OpDefBuilder& DeclareUnpaddedPoolAttrs(OpDefBuilder& builder, int rank, std::vector<DType> types,
                                       std::optional<DType> default_type) {
  const std::string format = rank == 2 ? "NHWC" : "NDHWC";
  std::vector<std::string> formats = {format};
  if (rank == 2) formats.push_back("NCHW");  // the ops declare ChannelsFirst
  return builder.IntListAttr(PoolAttrs::kKsize)
      .IntListAttr(PoolAttrs::kStrides)
      .StringAttr(PoolAttrs::kPadding, {}, {"SAME", "VALID"})
      .StringAttr(UnpaddedPoolAttrs::kDataFormat, format, std::move(formats))
      .TypeAttr(UnpaddedPoolAttrs::kT, std::move(types), default_type);
}

absl::Status SetPoolWindow(const ShapeContext& ctx, WindowSpec& spec) {
  const std::vector<int64_t>& ksize = ctx.attr(PoolAttrs::kKsize);
  const std::vector<int64_t>& strides = ctx.attr(PoolAttrs::kStrides);
  spec.padding = ctx.attr(PoolAttrs::kPadding);
  DUET_RETURN_IF_ERROR(CheckNhwcAttr("ksize", ksize, spec.rank));
  DUET_RETURN_IF_ERROR(CheckNhwcAttr("strides", strides, spec.rank));
  for (int d = 0; d < spec.rank; ++d) {
    spec.window[d] = ksize[1 + d];
    spec.stride[d] = strides[1 + d];
    // A window lying wholly in the padding would have nothing to pool.
    if (spec.pad_before[d] >= spec.window[d] || spec.pad_after[d] >= spec.window[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat("explicit paddings must be smaller than the window (ksize ",
                       AttrValueString(ksize), ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace duet
