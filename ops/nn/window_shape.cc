#include "ops/nn/window_shape.h"

#include "absl/strings/str_cat.h"
#include "ops/attr_value.h"
#include "ops/nn/nn_attrs.h"

namespace duet {

std::vector<int64_t> ExpandNhwcAttr(std::vector<int64_t> values) {
  if (values.size() == 1) return {1, values[0], values[0], 1};
  if (values.size() == 2) return {1, values[0], values[1], 1};
  return values;
}

absl::Status CheckNhwcAttr(absl::string_view name, const std::vector<int64_t>& values) {
  const bool ok =
      values.size() == 4 && values[0] == 1 && values[3] == 1 && values[1] >= 1 && values[2] >= 1;
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(name, " must be [1, height, width, 1] with height and width >= 1 (NHWC), got ",
                   AttrValueString(values)));
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
  if (padded < effective) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", dim_name, " ", in, (padded != in ? absl::StrCat(" (", padded, " padded)") : ""),
        " is smaller than the ", (spec.dilation[dim] > 1 ? "dilated " : ""), "window ", dim_name,
        " ", effective, " with ", spec.padding, " padding"));
  }
  return (padded - effective) / stride + 1;
}

absl::StatusOr<Shape> NhwcWindowOutputShape(const Shape& input, const WindowSpec& spec,
                                            int64_t out_channels) {
  if (input.unknown_rank()) return Shape{-1, -1, -1, out_channels};
  if (input.rank() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input must be 4-D (batch, height, width, channels), got shape ", input.str()));
  }
  DUET_ASSIGN_OR_RETURN(const int64_t height, WindowOutputSize(input[1], spec, 0, "height"));
  DUET_ASSIGN_OR_RETURN(const int64_t width, WindowOutputSize(input[2], spec, 1, "width"));
  return Shape{input[0], height, width, out_channels};
}

void SetPoolWindowAttrs(OpCall& call, std::vector<int64_t> ksize, std::vector<int64_t> strides,
                        std::string padding) {
  call.set(PoolAttrs::kKsize, ExpandNhwcAttr(std::move(ksize)));
  call.set(PoolAttrs::kStrides, ExpandNhwcAttr(std::move(strides)));
  call.set(PoolAttrs::kPadding, std::move(padding));
}

absl::Status SetPoolWindow(const ShapeContext& ctx, WindowSpec& spec) {
  const std::vector<int64_t>& ksize = ctx.attr(PoolAttrs::kKsize);
  const std::vector<int64_t>& strides = ctx.attr(PoolAttrs::kStrides);
  spec.padding = ctx.attr(PoolAttrs::kPadding);
  DUET_RETURN_IF_ERROR(CheckNhwcAttr("ksize", ksize));
  DUET_RETURN_IF_ERROR(CheckNhwcAttr("strides", strides));
  for (int d = 0; d < 2; ++d) {
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
