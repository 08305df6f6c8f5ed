// Einsum equations ("abc,cd->abd", "...b,bc->...c"): parsing, and resolving the labels against
// the operands' shapes. Shared by Einsum's shape function, its CPU kernel and its gradient, so
// that all three accept exactly the same equations (Note [Einsum lowering] in
// ops/nn/einsum_op.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/shape.h"

namespace duet {

// The ellipsis "..." of a term, stored as this one character.
inline constexpr char kEinsumEllipsis = '.';

// An equation split into terms: letters, with "..." stored as kEinsumEllipsis.
struct EinsumSubscripts {
  std::vector<std::string> inputs;  // one term per operand
  std::string output;

  // The equation written back ("...b,bc->...c").
  std::string str() const;
};

// Parses `equation` for `num_inputs` operands; spaces are ignored. A label repeated within a term
// names a diagonal: of an input ("ii->i", a trace with "ii->"), or of the output ("i->ii" puts
// the values on a diagonal of zeros), as in TensorFlow. InvalidArgument, naming the equation,
// for: a missing or repeated "->", a number of input terms other than num_inputs, a character
// that is neither a letter nor part of "...", two ellipses in one term, an output label found in
// no input. Unimplemented for more than two operands.
absl::StatusOr<EinsumSubscripts> ParseEinsumEquation(absl::string_view equation, int num_inputs);

// The first label of the dims an ellipsis covers; a term's k-th broadcast dim, counted over the
// broadcast shape of all the operands' ellipsis dims (right-aligned, NumPy-style), is label
// kEinsumEllipsisLabel + k. Letters are labelled by their character codes, which are smaller.
inline constexpr int kEinsumEllipsisLabel = 128;

// The equation resolved against the operands' shapes (known ranks, dims possibly unknown).
struct EinsumDims {
  // One label per dim of each operand and of the output, ellipses expanded.
  std::vector<std::vector<int>> inputs;
  std::vector<int> output;
  // The output's shape: each label's size, broadcast over the operands for ellipsis labels.
  Shape output_shape;
};

// Resolves `subscripts` against `shapes` (one per operand, known ranks). InvalidArgument, naming
// the equation and the shapes, when a term names more dims than its operand has (or fewer,
// without an ellipsis), when a label has different sizes (in two operands, or at two places of
// one), when the ellipsis
// dims do not broadcast, or when they are not empty and the output has no "...".
absl::StatusOr<EinsumDims> ResolveEinsumDims(const EinsumSubscripts& subscripts,
                                             absl::Span<const Shape> shapes);

}  // namespace duet
