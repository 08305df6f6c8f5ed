// Transpose: permutes the dims of a tensor (a copy).
#include <numeric>

#include "absl/strings/str_cat.h"
#include "ops/array/array_ops.h"
#include "ops/array/index_tensor.h"
#include "ops/array/shape_fn_util.h"
#include "ops/op_call.h"

namespace duet {
namespace {

absl::Status TransposeShape(ShapeContext& ctx) {
  DUET_RETURN_IF_ERROR(CheckVectorInput(ctx, 1, "perm"));
  const Shape& in = ctx.input_shape(0);
  const DType dtype = ctx.output(0).dtype;
  const auto perm = ctx.input_ints(1);
  if (!perm) {
    ctx.set_output(0, dtype, Shape::Unknown(in.unknown_rank() ? -1 : in.rank()));
    return absl::OkStatus();
  }
  const int rank = static_cast<int>(perm->size());
  if (!in.unknown_rank() && in.rank() != rank) {
    return absl::InvalidArgumentError(absl::StrCat("perm ", IntsString(*perm), " has ", rank,
                                                   " entries but the input has rank ", in.rank()));
  }
  std::vector<bool> seen(rank, false);
  for (int64_t p : *perm) {
    if (p < 0 || p >= rank || seen[p]) {
      return absl::InvalidArgumentError(
          absl::StrCat("perm ", IntsString(*perm), " is not a permutation of 0..", rank - 1));
    }
    seen[p] = true;
  }
  Shape out;
  for (int64_t p : *perm) out.push_back(in.unknown_rank() ? Shape::kUnknownDim : in.dim(p));
  ctx.set_output(0, dtype, std::move(out));
  return absl::OkStatus();
}

const OpDef* const kTranspose = OpDefBuilder("Transpose")
                                    .Input("x", "T")
                                    .Input("perm", "Tperm")
                                    .HostInputs({"perm"})
                                    .Output("y", "T")
                                    .TypeAttr("T", kAllDTypes)
                                    .TypeAttr("Tperm", kIndexTypes, kInt32)
                                    .Doc("Permutes the dims: output dim i is input dim perm[i].")
                                    .SetShapeFn(TransposeShape)
                                    .Register();

}  // namespace

Tensor transpose(const Tensor& x, std::vector<int64_t> perm, OpSite site) {
  if (perm.empty() && x.defined() && !x.shape().unknown_rank()) {
    perm.resize(x.rank());
    std::iota(perm.rbegin(), perm.rend(), 0);  // reverse the dims, like tf.transpose
  }
  OpCall call(kTranspose, {x, IndexTensor(perm)}, site);
  return RunSingleOutputOp(call);
}

}  // namespace duet
