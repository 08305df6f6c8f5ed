// Viewing and copying rows of tensors without running an op per element: what slicing,
// batching, padding and unbatching are made of. Numeric elements are copied with memcpy, kString
// elements (std::string objects) by assignment; object dtypes are refused; a tensor on another
// device is read through the CPU.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/tensor.h"

namespace duet::data {

// The tensor's values on the CPU, or an error naming `what` for a symbolic or object tensor.
absl::StatusOr<Tensor> ReadableOnCpu(const Tensor& t, const std::string& what);

// Row `row` of axis 0 of `t` (a CPU tensor of rank >= 1) as a tensor of rank - 1: a view of t's
// memory, not a copy.
Tensor SliceRow(const Tensor& t, int64_t row);

// The tensors (same dtype and shape, else an error naming `what`, the element indices counted
// from `first_index`, and the shapes) stacked along a new axis 0.
absl::StatusOr<Tensor> StackRows(absl::Span<const Tensor> rows, int64_t first_index,
                                 const std::string& what);

// The tensors (same dtype and rank) stacked along a new axis 0 of shape {n} + `shape`, each
// copied into the corner of its row and the rest filled with the scalar `padding`.
absl::StatusOr<Tensor> PadAndStackRows(absl::Span<const Tensor> rows, const Shape& shape,
                                       const Tensor& padding);

}  // namespace duet::data
