// Shape arithmetic shared by the matmul ops (MatMul, BatchMatMulV2, _FusedMatMul).
#pragma once

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/shape.h"

namespace duet {

// Checks that the contracted dims of op(a) and op(b) agree, where op transposes the last two dims
// when ta / tb; unknown dims agree with anything. The error names both shapes and the attrs
// (`ta_name`, `tb_name`) with their values.
absl::Status CheckInnerDims(const Shape& a, const Shape& b, bool ta, bool tb,
                            absl::string_view ta_name, absl::string_view tb_name);

// The shape [m, n] of op(a) x op(b) for 2-D a and b (unknown rank allowed; then m or n is
// unknown); errors name the shapes and transpose_a / transpose_b.
absl::StatusOr<Shape> MatMulOutputShape(const Shape& a, const Shape& b, bool transpose_a,
                                        bool transpose_b);

}  // namespace duet
