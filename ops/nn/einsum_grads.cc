// Einsum's gradient, TensorFlow's _EinsumGrad: the gradient of each operand is itself an Einsum
// of the upstream gradient with the other operand, with the roles of the terms swapped, so it can
// be differentiated again. Diagonals take care of themselves: a label the output repeats is read
// on its diagonal by the first Einsum, one the operand repeats is inflated by the last (Note
// [Einsum diagonals] in kernels/common/einsum_lowering.cc). Three corrections follow it:
// - labels the operand alone had and the output dropped (summed away) come back by an outer
//   product with ones of their sizes;
// - dims under "..." that the operand broadcast are summed away again;
// - a last Einsum puts the dims back in the operand's order.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "ops/array/array_ops.h"
#include "ops/gradient.h"
#include "ops/nn/einsum_equation.h"
#include "ops/nn/nn_attrs.h"
#include "ops/nn/nn_ops.h"
#include "ops/reduction/reduction_grads.h"

namespace duet {
namespace {

bool Has(const std::string& term, char c) { return term.find(c) != std::string::npos; }

// The axis of input `k` that label `c` of its term names.
int64_t AxisOf(const std::string& term, char c, int rank) {
  const size_t pos = term.find(c);
  const size_t ellipsis = term.find(kEinsumEllipsis);
  if (ellipsis == std::string::npos || pos < ellipsis) return static_cast<int64_t>(pos);
  return rank - static_cast<int64_t>(term.size() - pos);
}

std::string Equation(std::vector<std::string> inputs, std::string output) {
  EinsumSubscripts subscripts;
  subscripts.inputs = std::move(inputs);
  subscripts.output = std::move(output);
  return subscripts.str();
}

// `g`, whose dims are [the output's "..." dims, `rest` labels], summed over the "..." dims that
// input k broadcast: what is left has k's own "..." dims (none when its term has no "...").
Tensor Unbroadcast(const Tensor& g, const GradientContext& ctx, int k, const std::string& term,
                   const std::string& rest) {
  const Shape& in = ctx.input_shape(k);
  const int num_out = g.rank() - static_cast<int>(rest.size());
  const bool term_ellipsis = Has(term, kEinsumEllipsis);
  const int num_in = term_ellipsis ? in.rank() - static_cast<int>(term.size() - 1) : 0;
  const int at = term_ellipsis ? static_cast<int>(term.find(kEinsumEllipsis)) : 0;
  const int lead = num_out - num_in;
  bool known = true;
  for (int d = 0; d < num_in; ++d) known = known && in.dim(at + d) != Shape::kUnknownDim;
  if (known) {
    // The input's "..." dims of size 1 are summed with keep_dims, the dims it lacks without.
    std::vector<int64_t> ones;
    for (int d = 0; d < num_in; ++d) {
      if (in.dim(at + d) == 1 && g.shape().dim(lead + d) != 1) ones.push_back(lead + d);
    }
    Tensor out = ones.empty() ? g : SumOver(g, ones, /*keep_dims=*/true);
    if (lead == 0) return out;
    std::vector<int64_t> leading(lead);
    for (int d = 0; d < lead; ++d) leading[d] = d;
    return SumOver(out, leading, /*keep_dims=*/false);
  }
  // Graph mode with unknown "..." dims: the broadcast axes at run time, from the shapes.
  const Tensor in_shape = shape_of(ctx.input(k));
  const Tensor in_ellipsis = slice(in_shape, {at}, {num_in});
  const Tensor out_ellipsis = slice(shape_of(g), {0}, {num_out});
  const Tensor axes = broadcast_gradient_args(in_ellipsis, out_ellipsis).first;
  std::vector<int32_t> kept;
  for (int d = 0; d < num_in; ++d) kept.push_back(static_cast<int32_t>(at + d));
  for (char c : rest) kept.push_back(static_cast<int32_t>(AxisOf(term, c, in.rank())));
  return reshape(SumOver(g, axes, /*keep_dims=*/false), gather(in_shape, from_vector(kept)));
}

// The gradient of input k.
Tensor OperandGrad(const GradientContext& ctx, const EinsumSubscripts& subscripts, int k) {
  const std::string& term = subscripts.inputs[k];
  const std::string& out = subscripts.output;
  const bool binary = subscripts.inputs.size() == 2;
  const std::string other = binary ? subscripts.inputs[1 - k] : std::string();
  // The labels summed away by k alone, and the others, once each: a label k repeats (a diagonal)
  // is inflated back by the last Einsum to `term`.
  std::string reduced, rest;
  for (char c : term) {
    if (c == kEinsumEllipsis || Has(reduced, c) || Has(rest, c)) continue;
    (Has(out, c) || Has(other, c) ? rest : reduced).push_back(c);
  }
  const bool out_ellipsis = Has(out, kEinsumEllipsis);
  std::vector<std::string> terms = {out};
  std::vector<Tensor> operands = {ctx.grad(0)};
  if (binary) {
    terms.push_back(other);
    operands.push_back(ctx.input(1 - k));
  }
  const std::string ellipsis(out_ellipsis ? 1 : 0, kEinsumEllipsis);
  Tensor g = einsum(Equation(terms, ellipsis + rest), operands);
  std::string g_term = rest;
  if (out_ellipsis) {
    g = Unbroadcast(g, ctx, k, term, rest);
    if (Has(term, kEinsumEllipsis)) g_term = ellipsis + rest;
  }
  if (!reduced.empty()) {
    const Shape& in = ctx.input_shape(k);
    Shape dims;
    std::vector<int32_t> axes;
    for (char c : reduced) {
      axes.push_back(static_cast<int32_t>(AxisOf(term, c, in.rank())));
      dims.push_back(in.dim(static_cast<int>(axes.back())));
    }
    const Tensor ones_of_reduced =
        dims.is_fully_defined()
            ? ones(dims, g.dtype())
            : fill(gather(shape_of(ctx.input(k)), from_vector(axes)), scalar(1, g.dtype()));
    return einsum(Equation({g_term, reduced}, term), {g, ones_of_reduced});
  }
  return g_term == term ? g : einsum(Equation({g_term}, term), {g});
}

TensorList EinsumGrad(const GradientContext& ctx) {
  const int n = ctx.num_inputs();
  absl::StatusOr<EinsumSubscripts> subscripts =
      ParseEinsumEquation(ctx.attr(EinsumAttrs::kEquation), n);
  if (!subscripts.ok()) throw Error(subscripts.status());
  bool unknown_rank = ctx.grad(0).shape().unknown_rank();
  for (int i = 0; i < n; ++i) unknown_rank = unknown_rank || ctx.input_shape(i).unknown_rank();
  if (unknown_rank) {
    throw Error(absl::UnimplementedError(absl::StrCat("the gradient of Einsum '", subscripts->str(),
                                                      "' needs operands of known rank")));
  }
  TensorList grads(n);
  for (int k = 0; k < n; ++k) {
    if (ctx.needs_grad(k)) grads[k] = OperandGrad(ctx, *subscripts, k);
  }
  return grads;
}

const GradientRegistrar kEinsumGrad("Einsum", EinsumGrad, /*keep_inputs=*/{0, 1});

}  // namespace
}  // namespace duet
