// Helpers shared by the array ops' shape functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ops/shape_context.h"

namespace duet {

// Every numeric dtype: array ops only move data, so they accept them all.
inline const std::vector<DType> kAllDTypes = {kFloat32, kFloat64, kFloat16, kBFloat16,
                                              kInt32,   kInt64,   kBool,    kUInt8};
// Every value dtype, strings too: for the ops that have string kernels (Note [String tensors] in
// core/tensor.cc), which copy std::string objects rather than bytes.
inline const std::vector<DType> kAllDTypesAndString = {
    kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool, kUInt8, kString};

// "[1, 0, 2]": how shape-function errors print integer operands.
std::string IntsString(absl::Span<const int64_t> values);

// OK when input `i` (called `name` in errors) is a 1-D tensor (or of unknown rank).
absl::Status CheckVectorInput(const ShapeContext& ctx, int i, absl::string_view name);
// OK when input `i` is a scalar or a one-element 1-D tensor, as TensorFlow accepts for axes.
absl::Status CheckScalarInput(const ShapeContext& ctx, int i, absl::string_view name);

// True when the product of the (non-negative) `dims` does not fit in int64.
bool ProductOverflows(absl::Span<const int64_t> dims);

// The shape that 1-D shape operand `i` (Reshape's shape, Fill's dims) names when its values are
// unknown: one unknown dim per element, or unknown rank when its length is unknown too.
Shape UnknownShapeFromInput(const ShapeContext& ctx, int i);

// The shape that 1-D shape operand `i` (called `name` in errors: Fill's dims, BroadcastTo's shape,
// StridedSliceGrad's shape) holds: nullopt while its values are unknown, else its dims, which must
// be non-negative with an element count that fits in int64.
absl::StatusOr<std::optional<Shape>> ShapeFromInput(const ShapeContext& ctx, int i,
                                                    absl::string_view name);

}  // namespace duet
