// Einsum: TensorFlow's op for Einstein summation over one or two operands, and the einsum() op
// function.
//
// Note [Einsum lowering]: Einsum is an op of its own, not a composite that einsum() expands into
// other ops, because frozen Keras models (MultiHeadAttention, EinsumDense) carry Einsum nodes and
// GraphDef import makes one node per NodeDef, with no step that expands a node into others. Its
// CPU kernel (kernels/cpu/nn/einsum_kernel.cc) lowers the equation at run time onto the kernels
// of existing ops, as TensorFlow's own kernel does:
//   1. labels found in one operand only and not in the output are summed away (Sum);
//   2. with two operands, each is transposed to [batch, free, contracted] (x) and
//      [batch, contracted, free] (y), viewed as 3 groups, and multiplied (BatchMatMulV2, whose
//      batch broadcasting serves the dims under "..."); the labels of both operands that the
//      output keeps are the batch labels, those it drops are contracted;
//   3. the result is viewed with one dim per label and transposed to the output's order.
// A step that would change nothing (an identity permutation) is skipped, so "ij->ij" is a view.
// The gradient (ops/nn/einsum_grads.cc) is TensorFlow's _EinsumGrad: Einsums with swapped
// equations, so it is differentiable again. The equation grammar, shared by the shape function,
// the kernel and the gradient, is in ops/nn/einsum_equation.h: explicit "->" output, letters,
// one "..." per term with NumPy broadcasting, 1 or 2 operands. A label repeated within a term
// (a diagonal or a trace) is taken with StridedSlice before step 1, and one repeated in the
// output made with StridedSliceGrad after step 3 (Note [Einsum diagonals] in
// kernels/common/einsum_lowering.cc).
#include "ops/nn/einsum_equation.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_call.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

// The output's shape when an operand's rank is unknown: the output's rank when it has no "...",
// with the sizes of the labels an operand of known rank shows.
Shape PartialOutputShape(const EinsumSubscripts& subscripts, absl::Span<const Shape> shapes) {
  const std::string& output = subscripts.output;
  if (output.find(kEinsumEllipsis) != std::string::npos) return Shape::UnknownRank();
  Shape out = Shape::Unknown(static_cast<int>(output.size()));
  for (size_t o = 0; o < output.size(); ++o) {
    for (size_t i = 0; i < shapes.size(); ++i) {
      const std::string& term = subscripts.inputs[i];
      const size_t pos = term.find(output[o]);
      if (pos == std::string::npos || shapes[i].unknown_rank()) continue;
      const size_t ellipsis = term.find(kEinsumEllipsis);
      const int64_t axis = ellipsis == std::string::npos || pos < ellipsis
                               ? static_cast<int64_t>(pos)
                               : shapes[i].rank() - static_cast<int64_t>(term.size() - pos);
      if (axis >= 0 && axis < shapes[i].rank() && shapes[i].dim(axis) != Shape::kUnknownDim) {
        out.set_dim(static_cast<int>(o), shapes[i].dim(axis));
      }
    }
  }
  return out;
}

absl::Status EinsumShape(ShapeContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const EinsumSubscripts subscripts,
                        ParseEinsumEquation(ctx.attr(EinsumAttrs::kEquation), ctx.num_inputs()));
  const DType dtype = ctx.output(0).dtype;
  std::vector<Shape> shapes;
  bool known_ranks = true;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    shapes.push_back(ctx.input_shape(i));
    known_ranks = known_ranks && !shapes.back().unknown_rank();
  }
  if (!known_ranks) {
    ctx.set_output(0, dtype, PartialOutputShape(subscripts, shapes));
    return absl::OkStatus();
  }
  DUET_ASSIGN_OR_RETURN(EinsumDims dims, ResolveEinsumDims(subscripts, shapes));
  ctx.set_output(0, dtype, std::move(dims.output_shape));
  return absl::OkStatus();
}

const OpDef* const kEinsum =
    OpDefBuilder("Einsum")
        .InputList("inputs", "T", "N")
        .Output("output", "T")
        .StringAttr(EinsumAttrs::kEquation)
        .IntAttr(EinsumAttrs::kN, {}, 1)
        .TypeAttr(EinsumAttrs::kT, {kFloat32, kFloat64})
        .Doc("Einstein summation of 1 or 2 operands by an equation such as \"abc,cd->abd\".")
        .TfDifference(
            "At most 2 operands (TensorFlow takes any number): chain two-operand "
            "einsums instead.")
        .SetShapeFn(EinsumShape)
        .Register();

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& inputs, OpSite site) {
  OpCall call(kEinsum, TensorList(inputs.begin(), inputs.end()), site);
  call.set(EinsumAttrs::kEquation, equation);
  call.set(EinsumAttrs::kN, static_cast<int64_t>(inputs.size()));
  return RunSingleOutputOp(call);
}

}  // namespace duet
