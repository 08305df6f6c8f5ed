#include "ops/nn/matmul_shape.h"

#include "absl/strings/str_cat.h"
#include "core/error.h"

namespace duet {
namespace {

const char* BoolName(bool b) { return b ? "true" : "false"; }

}  // namespace

absl::Status CheckInnerDims(const Shape& a, const Shape& b, bool ta, bool tb,
                            absl::string_view ta_name, absl::string_view tb_name) {
  const int64_t ka = a.dim(a.rank() - (ta ? 2 : 1));
  const int64_t kb = b.dim(b.rank() - (tb ? 1 : 2));
  if (ka < 0 || kb < 0 || ka == kb) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "inner dimensions do not match: ", ka, " vs ", kb, " (shapes ", a.str(), " and ", b.str(),
      ", ", ta_name, "=", BoolName(ta), ", ", tb_name, "=", BoolName(tb), ")"));
}

absl::StatusOr<Shape> MatMulOutputShape(const Shape& a, const Shape& b, bool transpose_a,
                                        bool transpose_b) {
  for (const Shape* s : {&a, &b}) {
    if (!s->unknown_rank() && s->rank() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("a and b must be 2-D matrices, got shapes ", a.str(), " and ", b.str()));
    }
  }
  const int64_t m = a.unknown_rank() ? -1 : a[transpose_a ? 1 : 0];
  const int64_t n = b.unknown_rank() ? -1 : b[transpose_b ? 0 : 1];
  if (!a.unknown_rank() && !b.unknown_rank()) {
    DUET_RETURN_IF_ERROR(
        CheckInnerDims(a, b, transpose_a, transpose_b, "transpose_a", "transpose_b"));
  }
  return Shape{m, n};
}

}  // namespace duet
