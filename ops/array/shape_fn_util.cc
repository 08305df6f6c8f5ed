#include "ops/array/shape_fn_util.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace duet {

std::string IntsString(absl::Span<const int64_t> values) {
  return absl::StrCat("[", absl::StrJoin(values, ", "), "]");
}

absl::Status CheckVectorInput(const ShapeContext& ctx, int i, absl::string_view name) {
  const Shape& s = ctx.input_shape(i);
  if (s.unknown_rank() || s.rank() == 1) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(name, " must be a 1-D tensor, got shape ", s.str()));
}

absl::Status CheckScalarInput(const ShapeContext& ctx, int i, absl::string_view name) {
  const Shape& s = ctx.input_shape(i);
  if (s.unknown_rank() || s.rank() == 0 || (s.rank() == 1 && s.dim(0) == 1)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(name, " must be a scalar, got shape ", s.str()));
}

bool ProductOverflows(absl::Span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (__builtin_mul_overflow(n, d, &n)) return true;
  }
  return false;
}

Shape UnknownShapeFromInput(const ShapeContext& ctx, int i) {
  const Shape& s = ctx.input_shape(i);
  return Shape::Unknown(s.unknown_rank() ? -1 : static_cast<int>(s.dim(0)));
}

absl::StatusOr<std::optional<Shape>> ShapeFromInput(const ShapeContext& ctx, int i,
                                                    absl::string_view name) {
  const auto dims = ctx.input_ints(i);
  if (!dims) return std::nullopt;
  for (int64_t d : *dims) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " ", IntsString(*dims), " must be non-negative"));
    }
  }
  if (ProductOverflows(*dims)) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " ", IntsString(*dims), " has too many elements"));
  }
  return Shape(*dims);
}

}  // namespace duet
