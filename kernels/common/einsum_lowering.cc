#include "kernels/common/einsum_lowering.h"

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "ops/nn/einsum_equation.h"
#include "ops/nn/nn_attrs.h"
#include "ops/op_ref.h"

namespace duet {
namespace {

const OpRef kSumOp("Sum");
const OpRef kTransposeOp("Transpose");
const OpRef kBatchMatMulV2Op("BatchMatMulV2");
const OpRef kStridedSliceOp("StridedSlice");
const OpRef kStridedSliceGradOp("StridedSliceGrad");

// A tensor with one label per dim.
struct Labeled {
  Tensor value;
  std::vector<int> labels;
};

bool Contains(const std::vector<int>& labels, int label) {
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

int AxisOf(const std::vector<int>& labels, int label) {
  return static_cast<int>(std::find(labels.begin(), labels.end(), label) - labels.begin());
}

int64_t Product(const Tensor& t, int begin, int end) {
  int64_t n = 1;
  for (int d = begin; d < end; ++d) n *= t.shape().dim(d);
  return n;
}

// Runs `op`'s kernel on `inputs` into a new tensor of `shape`.
absl::StatusOr<Tensor> RunStep(const OpRef& op, TensorList inputs, const Shape& shape, DType dtype,
                               Device device) {
  OpCall call(&op.def(), std::move(inputs), OpSite());
  DUET_RETURN_IF_ERROR(BindAttrs(call));
  OutputList outputs(1);
  DUET_ASSIGN_OR_RETURN(outputs[0], Tensor::TryEmpty(dtype, shape, device));
  DUET_RETURN_IF_ERROR(RunKernel(call, device, outputs));
  return outputs[0];
}

// x with its dims in the order of `labels` (a permutation of x.labels; a label x has several times
// takes its axes in order).
absl::StatusOr<Labeled> Permute(const Labeled& x, const std::vector<int>& labels, Device device) {
  std::vector<int64_t> perm;
  std::vector<bool> used(x.labels.size(), false);
  Shape shape;
  for (int label : labels) {
    int axis = 0;
    while (used[axis] || x.labels[axis] != label) ++axis;
    used[axis] = true;
    perm.push_back(axis);
    shape.push_back(x.value.shape().dim(axis));
  }
  std::vector<int64_t> identity(perm.size());
  std::iota(identity.begin(), identity.end(), 0);
  if (perm == identity) return Labeled{x.value, labels};
  DUET_ASSIGN_OR_RETURN(Tensor y, RunStep(kTransposeOp, {x.value, from_vector(perm)}, shape,
                                          x.value.dtype(), device));
  return Labeled{std::move(y), labels};
}

// Note [Einsum diagonals]
// A label repeated within a term names a diagonal. Its r axes of size n, made adjacent, are one
// axis of n^r elements in which the diagonal entries (k, ..., k) sit every s = 1 + n + ... +
// n^(r-1) elements: an input's diagonal is a StridedSlice with stride s of that axis ("ii->i"
// takes x[k, k]), and a label repeated in the output inflates the diagonal back into zeros with
// StridedSliceGrad, the slice's adjoint ("i->ii" makes diag(x)), as TensorFlow's einsum does.

// The stride between diagonal entries of r axes of size n, flattened (Note [Einsum diagonals]).
int64_t DiagonalStride(int64_t n, int r) {
  int64_t s = 0;
  for (int64_t power = 1, j = 0; j < r; ++j, power *= n) s += power;
  return s;
}

// The StridedSlice operands (begin, end, strides) that take every `stride`-th element of axis
// `axis` of `shape` up to `end`, and all of every other axis.
TensorList SliceOperands(const Shape& shape, int axis, int64_t end, int64_t stride) {
  std::vector<int64_t> begins(shape.rank(), 0), ends(shape.dims().begin(), shape.dims().end()),
      strides(shape.rank(), 1);
  ends[axis] = end;
  strides[axis] = stride;
  return {from_vector(begins), from_vector(ends), from_vector(strides)};
}

// x with the r >= 2 axes of `label` replaced by their diagonal, one axis where the first was.
absl::StatusOr<Labeled> Diagonal(const Labeled& x, int label, Device device) {
  std::vector<int> adjacent;  // the labels with every `label` at its first position
  int r = 0;
  for (int l : x.labels) {
    if (l != label) {
      adjacent.push_back(l);
    } else if (r++ == 0) {
      adjacent.push_back(l);
    }
  }
  const int at = AxisOf(adjacent, label);
  adjacent.insert(adjacent.begin() + at + 1, r - 1, label);
  DUET_ASSIGN_OR_RETURN(const Labeled y, Permute(x, adjacent, device));
  const int64_t n = y.value.shape().dim(at);
  Shape merged, out;
  int64_t cells = 1;
  for (int d = 0; d < y.value.rank(); ++d) {
    if (d > at && d < at + r) continue;
    const int64_t size = y.value.shape().dim(d);
    if (d == at) {
      for (int j = 0; j < r; ++j) cells *= n;
    }
    merged.push_back(d == at ? cells : size);
    out.push_back(size);
  }
  const int64_t stride = DiagonalStride(n, r);
  TensorList inputs = {y.value.reshaped(merged)};
  for (Tensor& t : SliceOperands(merged, at, n == 0 ? 0 : (n - 1) * stride + 1, stride)) {
    inputs.push_back(std::move(t));
  }
  Labeled result;
  DUET_ASSIGN_OR_RETURN(result.value,
                        RunStep(kStridedSliceOp, std::move(inputs), out, x.value.dtype(), device));
  result.labels = adjacent;
  result.labels.erase(result.labels.begin() + at + 1, result.labels.begin() + at + r);
  return result;
}

// x with the axis of `label` inflated into r diagonal axes (zeros off the diagonal), adjacent.
absl::StatusOr<Labeled> Inflate(const Labeled& x, int label, int r, Device device) {
  const int at = AxisOf(x.labels, label);
  const int64_t n = x.value.shape().dim(at);
  Shape merged = x.value.shape(), out;
  int64_t cells = 1;
  for (int j = 0; j < r; ++j) cells *= n;
  merged.set_dim(at, cells);
  for (int d = 0; d < x.value.rank(); ++d) {
    for (int j = 0; j < (d == at ? r : 1); ++j) out.push_back(x.value.shape().dim(d));
  }
  const int64_t stride = DiagonalStride(n, r);
  TensorList inputs = {
      from_vector(std::vector<int64_t>(merged.dims().begin(), merged.dims().end()))};
  for (Tensor& t : SliceOperands(merged, at, n == 0 ? 0 : (n - 1) * stride + 1, stride)) {
    inputs.push_back(std::move(t));
  }
  inputs.push_back(x.value);
  DUET_ASSIGN_OR_RETURN(const Tensor inflated, RunStep(kStridedSliceGradOp, std::move(inputs),
                                                       merged, x.value.dtype(), device));
  Labeled result{inflated.reshaped(out), x.labels};
  result.labels.insert(result.labels.begin() + at + 1, r - 1, label);
  return result;
}

// How often each label occurs in `labels`, in order of first occurrence.
std::vector<std::pair<int, int>> LabelCounts(const std::vector<int>& labels) {
  std::vector<std::pair<int, int>> counts;
  for (int label : labels) {
    auto it = std::find_if(counts.begin(), counts.end(),
                           [label](const auto& c) { return c.first == label; });
    if (it == counts.end()) {
      counts.emplace_back(label, 1);
    } else {
      ++it->second;
    }
  }
  return counts;
}

// x summed over the dims whose labels `keep` rejects.
template <typename Keep>
absl::StatusOr<Labeled> SumAway(const Labeled& x, Keep keep, Device device) {
  std::vector<int64_t> axes;
  Labeled y;
  Shape shape;
  for (size_t d = 0; d < x.labels.size(); ++d) {
    if (keep(x.labels[d])) {
      y.labels.push_back(x.labels[d]);
      shape.push_back(x.value.shape().dim(static_cast<int>(d)));
    } else {
      axes.push_back(static_cast<int64_t>(d));
    }
  }
  if (axes.empty()) return x;
  DUET_ASSIGN_OR_RETURN(
      y.value, RunStep(kSumOp, {x.value, from_vector(axes)}, shape, x.value.dtype(), device));
  return y;
}

// The product of x and y over their shared labels that the output drops, keeping the shared
// labels it keeps as batch dims: [batch..., x's own labels..., y's own labels...].
absl::StatusOr<Labeled> Contract(const Labeled& x, const Labeled& y, const std::vector<int>& output,
                                 Device device) {
  std::vector<int> batch, free_x, free_y, contracted;
  for (int label : output) {
    const bool in_x = Contains(x.labels, label);
    const bool in_y = Contains(y.labels, label);
    if (in_x && in_y) {
      batch.push_back(label);
    } else if (in_x) {
      free_x.push_back(label);
    } else if (in_y) {
      free_y.push_back(label);
    }
  }
  for (int label : x.labels) {
    if (!Contains(output, label)) contracted.push_back(label);  // in y too, after SumAway
  }
  const int nb = static_cast<int>(batch.size());
  std::vector<int> x_order = batch, y_order = batch;
  x_order.insert(x_order.end(), free_x.begin(), free_x.end());
  x_order.insert(x_order.end(), contracted.begin(), contracted.end());
  y_order.insert(y_order.end(), contracted.begin(), contracted.end());
  y_order.insert(y_order.end(), free_y.begin(), free_y.end());
  DUET_ASSIGN_OR_RETURN(const Labeled xt, Permute(x, x_order, device));
  DUET_ASSIGN_OR_RETURN(const Labeled yt, Permute(y, y_order, device));
  const int nfx = static_cast<int>(free_x.size());
  const int nc = static_cast<int>(contracted.size());
  const int64_t m = Product(xt.value, nb, nb + nfx);
  const int64_t k = Product(xt.value, nb + nfx, nb + nfx + nc);
  const int64_t n = Product(yt.value, nb + nc, yt.value.rank());
  Shape x3, y3, z3, z;
  for (int d = 0; d < nb; ++d) {
    const int64_t dx = xt.value.shape().dim(d);
    const int64_t dy = yt.value.shape().dim(d);
    x3.push_back(dx);
    y3.push_back(dy);
    z3.push_back(dx == 1 ? dy : dx);  // the dims under "..." broadcast
    z.push_back(dx == 1 ? dy : dx);
  }
  x3.push_back(m);
  x3.push_back(k);
  y3.push_back(k);
  y3.push_back(n);
  z3.push_back(m);
  z3.push_back(n);
  for (int d = nb; d < nb + nfx; ++d) z.push_back(xt.value.shape().dim(d));
  for (int d = nb + nc; d < yt.value.rank(); ++d) z.push_back(yt.value.shape().dim(d));
  DUET_ASSIGN_OR_RETURN(const Tensor product,
                        RunStep(kBatchMatMulV2Op, {xt.value.reshaped(x3), yt.value.reshaped(y3)},
                                z3, x.value.dtype(), device));
  Labeled result{product.reshaped(z), batch};
  result.labels.insert(result.labels.end(), free_x.begin(), free_x.end());
  result.labels.insert(result.labels.end(), free_y.begin(), free_y.end());
  return result;
}

}  // namespace

absl::Status EinsumLoweringKernel(KernelContext& ctx) {
  const int n = ctx.num_inputs();
  DUET_ASSIGN_OR_RETURN(const EinsumSubscripts subscripts,
                        ParseEinsumEquation(ctx.attr(EinsumAttrs::kEquation), n));
  std::vector<Shape> shapes;
  for (int i = 0; i < n; ++i) shapes.push_back(ctx.input(i).shape());
  DUET_ASSIGN_OR_RETURN(const EinsumDims dims, ResolveEinsumDims(subscripts, shapes));
  std::vector<Labeled> operands;
  for (int i = 0; i < n; ++i) {
    // Diagonals first (Note [Einsum diagonals]), then the labels only this operand has and the
    // output drops are summed away.
    Labeled operand{ctx.input(i), dims.inputs[i]};
    for (const auto& [label, count] : LabelCounts(dims.inputs[i])) {
      if (count > 1) {
        DUET_ASSIGN_OR_RETURN(operand, Diagonal(operand, label, ctx.device()));
      }
    }
    const std::vector<int>* other = n == 2 ? &dims.inputs[1 - i] : nullptr;
    auto keep = [&](int label) {
      return Contains(dims.output, label) || (other != nullptr && Contains(*other, label));
    };
    DUET_ASSIGN_OR_RETURN(operand, SumAway(operand, keep, ctx.device()));
    operands.push_back(std::move(operand));
  }
  // The output's labels once each; those it repeats are inflated at the end.
  const std::vector<std::pair<int, int>> output_counts = LabelCounts(dims.output);
  std::vector<int> output_labels;
  for (const auto& [label, count] : output_counts) output_labels.push_back(label);
  Labeled result = operands[0];
  if (n == 2) {
    DUET_ASSIGN_OR_RETURN(result, Contract(operands[0], operands[1], output_labels, ctx.device()));
  }
  for (const auto& [label, count] : output_counts) {
    if (count > 1) {
      DUET_ASSIGN_OR_RETURN(result, Inflate(result, label, count, ctx.device()));
    }
  }
  DUET_ASSIGN_OR_RETURN(result, Permute(result, dims.output, ctx.device()));
  ctx.output(0) = result.value.reshaped(dims.output_shape);
  return absl::OkStatus();
}

}  // namespace duet
