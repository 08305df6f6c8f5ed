// Shape functions shared by many ops.
#pragma once

#include "ops/shape_context.h"

namespace duet {

// Output 0 has input 0's dtype and shape (unary elementwise ops, Identity, Relu, ...).
absl::Status UnchangedShape(ShapeContext& ctx);
// Output 0 has the NumPy broadcast of inputs 0 and 1; its dtype comes from the signature
// (T for AddV2, bool for Less).
absl::Status BroadcastBinaryShape(ShapeContext& ctx);

}  // namespace duet
