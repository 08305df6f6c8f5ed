// _FusedElementwise: a region of elementwise ops as one node (Note [Elementwise programs]).
#include "ops/math/fused_elementwise_op.h"

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "ops/math/elementwise_program.h"
#include "ops/math/math_attrs.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

// True when `shape` is known to hold exactly one element: such inputs broadcast as scalars.
bool IsSingleElement(const Shape& shape) {
  return !shape.unknown_rank() && shape.num_elements() == 1;
}

// The program's shape: the NumPy broadcast of the inputs (the parts they read, Note [Input
// parts]), each of which must be a single element or (as far as is known) of that very shape.
absl::StatusOr<Shape> ProgramShape(const ShapeContext& ctx, const ElementwiseProgram& program) {
  std::vector<Shape> inputs;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const ElementwiseProgram::Part part =
        program.input_parts.empty() ? ElementwiseProgram::Part{} : program.input_parts[i];
    DUET_ASSIGN_OR_RETURN(inputs.emplace_back(), InputPartShape(ctx.input_shape(i), part, i));
  }
  Shape out = inputs[0];
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    DUET_ASSIGN_OR_RETURN(out, BroadcastShapes(out, inputs[i]));
  }
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const Shape& in = inputs[i];
    if (in.unknown_rank() || out.unknown_rank() || IsSingleElement(in)) continue;
    if (in.rank() != out.rank() || !in.IsCompatibleWith(out)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", i, " has shape ", in.str(), ", but every input must hold a single element or ",
          "have the output's shape ", out.str()));
    }
  }
  return out;
}

absl::Status FusedElementwiseShape(ShapeContext& ctx) {
  const std::vector<int64_t>& results = ctx.attr(FusedElementwiseAttrs::kResults);
  const std::vector<int64_t>& concat = ctx.attr(FusedElementwiseAttrs::kConcat);
  DUET_ASSIGN_OR_RETURN(
      const ElementwiseProgram program,
      DecodeElementwiseProgram(ctx.attr(FusedElementwiseAttrs::kOps),
                               ctx.attr(FusedElementwiseAttrs::kOperands), ctx.num_inputs(),
                               results, concat, ctx.attr(FusedElementwiseAttrs::kInputParts)));
  if (static_cast<int64_t>(results.size()) != ctx.attr(FusedElementwiseAttrs::kM)) {
    return absl::InvalidArgumentError(absl::StrCat("results names ", results.size(),
                                                   " instructions, but M (the extra outputs) is ",
                                                   ctx.attr(FusedElementwiseAttrs::kM)));
  }
  DUET_ASSIGN_OR_RETURN(const Shape program_shape, ProgramShape(ctx, program));
  for (int k = 0; k < ctx.num_outputs(); ++k) ctx.set_output(k, ctx.output(k).dtype, program_shape);
  if (concat.empty() || program_shape.unknown_rank()) return absl::OkStatus();
  // Note [Concatenated output]: output 0 joins len(concat) values along the last axis.
  if (program_shape.rank() == 0) {
    return absl::InvalidArgumentError(
        "concat joins values along their last axis, but the program's values are scalars");
  }
  std::vector<int64_t> dims(program_shape.dims().begin(), program_shape.dims().end());
  if (dims.back() >= 0) dims.back() *= static_cast<int64_t>(concat.size());
  ctx.set_output(0, ctx.output(0).dtype, Shape(dims));
  return absl::OkStatus();
}

const OpDef* const kFusedElementwise =
    OpDefBuilder("_FusedElementwise")
        .InputList("inputs", "T", "N")
        .Output("output", "T")
        .OutputList("extra", "T", "M")
        .TypeAttr(FusedElementwiseAttrs::kT, {kFloat32, kFloat64})
        .IntAttr(FusedElementwiseAttrs::kN, {}, 1)
        .StringListAttr(FusedElementwiseAttrs::kOps)
        .IntListAttr(FusedElementwiseAttrs::kOperands)
        .IntAttr(FusedElementwiseAttrs::kM, 0, 0)
        .IntListAttr(FusedElementwiseAttrs::kResults, std::vector<int64_t>{})
        .IntListAttr(FusedElementwiseAttrs::kConcat, std::vector<int64_t>{})
        .IntListAttr(FusedElementwiseAttrs::kInputParts, std::vector<int64_t>{})
        .Doc(
            "Made by the fuse_elementwise pass from a region of elementwise ops: evaluates the "
            "program ops/operands (instruction k applies ops[k] to the next 1 or 2 operands, value "
            "indices: inputs first, then earlier results; the last result is the output) in one "
            "pass; each input is a single element or of the output's shape. The M extra outputs "
            "are the values of instructions `results`, of the output's shape. A nonempty `concat` "
            "makes output 0 the values of the instructions it names side by side along the last "
            "axis; the inputs and extra outputs then have output 0's shape but for the last dim, "
            "divided by len(concat). A nonempty `input_parts`, two per input [k, n], reads input i "
            "as "
            "the k-th of n equal parts along its last axis (as Split's output k); [0, 1] reads it "
            "whole.")
        .SetShapeFn(FusedElementwiseShape)
        .Register();

}  // namespace

Tensor fused_elementwise(absl::Span<const Tensor> inputs, std::vector<std::string> ops,
                         std::vector<int64_t> operands, OpSite site) {
  return fused_elementwise(inputs, std::move(ops), std::move(operands), std::vector<int64_t>{}, {},
                           {}, site)[0];
}

std::vector<Tensor> fused_elementwise(absl::Span<const Tensor> inputs, std::vector<std::string> ops,
                                      std::vector<int64_t> operands, std::vector<int64_t> results,
                                      std::vector<int64_t> concat, std::vector<int64_t> input_parts,
                                      OpSite site) {
  OpCall call(kFusedElementwise, TensorList(inputs.begin(), inputs.end()), site);
  call.set(FusedElementwiseAttrs::kOps, std::move(ops));
  call.set(FusedElementwiseAttrs::kOperands, std::move(operands));
  call.set(FusedElementwiseAttrs::kM, static_cast<int64_t>(results.size()));
  call.set(FusedElementwiseAttrs::kResults, std::move(results));
  call.set(FusedElementwiseAttrs::kConcat, std::move(concat));
  call.set(FusedElementwiseAttrs::kInputParts, std::move(input_parts));
  const OutputList outputs = RunOp(call);
  return std::vector<Tensor>(outputs.begin(), outputs.end());
}

}  // namespace duet
