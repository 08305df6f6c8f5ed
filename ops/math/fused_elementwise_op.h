// The op function of _FusedElementwise, the op the fuse_elementwise pass makes of a region of
// elementwise ops: one kernel that evaluates the whole expression in one pass over memory. Not in
// duet.h: models write the ops, and the pass fuses them; this function serves the pass's tests and
// the kernel's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet {

// Evaluates the program `ops` / `operands` (Note [Elementwise programs] in
// ops/math/elementwise_program.h) over `inputs`: float32 or float64, all of one dtype, each a
// single element or of the output's shape. Throws duet::Error, naming the op, the instruction and
// the shapes, for a malformed program or inputs that broadcast otherwise.
Tensor fused_elementwise(absl::Span<const Tensor> inputs, std::vector<std::string> ops,
                         std::vector<int64_t> operands, OpSite site = {});
// The same with extra outputs (Note [Extra outputs]): the program's output, then the values of
// instructions `results`; with a nonempty `concat`, output 0 joins the values of the instructions
// it names along the last axis (Note [Concatenated output]); with a nonempty `input_parts`, input
// i is read as part input_parts[2i] of input_parts[2i + 1] along its last axis (Note [Input
// parts]).
std::vector<Tensor> fused_elementwise(absl::Span<const Tensor> inputs, std::vector<std::string> ops,
                                      std::vector<int64_t> operands, std::vector<int64_t> results,
                                      std::vector<int64_t> concat = {},
                                      std::vector<int64_t> input_parts = {}, OpSite site = {});

}  // namespace duet
